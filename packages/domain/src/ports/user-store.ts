/** Per-user notification switches (docs/api.md: merged key by key on PATCH /api/users/me). */
export interface NotificationSettings {
  readonly syncNotifications: boolean;
  readonly eventReminders: boolean;
  readonly conflictAlerts: boolean;
}

/** Defaults of a new user's notification settings (same as the `users` table default). */
export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = {
  syncNotifications: true,
  eventReminders: true,
  conflictAlerts: true,
};

/** A user as stored. `passwordHash` never leaves the domain. */
export interface UserRecord {
  readonly id: number;
  readonly name: string;
  /** Stored lower-cased; null when the user has none. */
  readonly email: string | null;
  readonly phone: string | null;
  readonly passwordHash: string | null;
  readonly role: string;
  readonly isPhoneVerified: boolean;
  /**
   * True from `createPhoneUser` until `completeSignUp`: the user's default calendar may not exist
   * yet (a sign-up that crashed between the user and the calendar); the next sign-in makes it.
   */
  readonly signUpPending: boolean;
  readonly notificationSettings: NotificationSettings;
}

/** The fields PATCH /api/users/me may change; absent keys stay as they are. */
export interface UserProfilePatch {
  readonly name?: string;
  readonly email?: string | null;
  readonly passwordHash?: string;
  /** Already merged with the stored settings by the domain. */
  readonly notificationSettings?: NotificationSettings;
}

/** What `createPhoneUser` needs: the verified phone and the name given at send-otp. */
export interface NewPhoneUser {
  readonly phone: string;
  readonly name: string;
  readonly now: string;
}

/**
 * Storage of users. Guarantees (checked by the auth store contract suite in testkit):
 * - e-mail lookups are case-insensitive and e-mails are unique ignoring case;
 * - `createPhoneUser` creates the user only, with `signUpPending` (its default calendar is made by the sync engine);
 *   when the phone already belongs to a user (a race), it creates nothing and returns that user
 *   with `created: false`.
 */
export interface UserStore {
  findById(id: number): Promise<UserRecord | null>;
  /** The users of these ids that exist, in no particular order (the reminder scheduler reads the switches of all the users it settles at once). */
  findByIds(ids: readonly number[]): Promise<UserRecord[]>;
  findByPhone(phone: string): Promise<UserRecord | null>;
  findByEmail(email: string): Promise<UserRecord | null>;
  createPhoneUser(input: NewPhoneUser): Promise<{ user: UserRecord; created: boolean }>;
  /** Marks the phone verified (a user created another way who then signs in by SMS). */
  markPhoneVerified(id: number, now: string): Promise<void>;
  /** Clears `signUpPending`: the user's default calendar was made. */
  completeSignUp(id: number): Promise<void>;
  /**
   * Applies the patch and returns the user after it; null when the user does not exist.
   * Throws `DomainError(EMAIL_TAKEN)` when the e-mail belongs to another user.
   */
  updateProfile(id: number, patch: UserProfilePatch, now: string): Promise<UserRecord | null>;
}
