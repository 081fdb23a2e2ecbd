import {
  DEFAULT_NOTIFICATION_SETTINGS,
  DomainError,
  ErrorCode,
  type NewPhoneUser,
  type UserProfilePatch,
  type UserRecord,
  type UserStore,
} from '@calsync/domain';

/** UserStore in memory, for domain and HTTP tests; held to the same contract suite as Postgres. */
export class InMemoryUserStore implements UserStore {
  private readonly users = new Map<number, UserRecord>();
  private nextId = 1;

  async findById(id: number): Promise<UserRecord | null> {
    return this.users.get(id) ?? null;
  }

  async findByIds(ids: readonly number[]): Promise<UserRecord[]> {
    return [...new Set(ids)].flatMap((id) => this.users.get(id) ?? []);
  }

  async findByPhone(phone: string): Promise<UserRecord | null> {
    return [...this.users.values()].find((u) => u.phone === phone) ?? null;
  }

  async findByEmail(email: string): Promise<UserRecord | null> {
    const e = email.toLowerCase();
    return [...this.users.values()].find((u) => u.email?.toLowerCase() === e) ?? null;
  }

  async createPhoneUser(input: NewPhoneUser): Promise<{ user: UserRecord; created: boolean }> {
    // No await before the insert: check-and-insert is atomic under the event loop.
    const existing = [...this.users.values()].find((u) => u.phone === input.phone);
    if (existing) return { user: existing, created: false };
    const user: UserRecord = {
      id: this.nextId++,
      name: input.name,
      email: null,
      phone: input.phone,
      passwordHash: null,
      role: 'USER',
      isPhoneVerified: true,
      signUpPending: true,
      notificationSettings: { ...DEFAULT_NOTIFICATION_SETTINGS },
    };
    this.users.set(user.id, user);
    return { user, created: true };
  }

  /** Test helper: adds a user directly (e.g. one with e-mail and password). */
  insert(fields: Partial<Omit<UserRecord, 'id'>>): UserRecord {
    const user: UserRecord = {
      id: this.nextId++,
      name: '',
      email: null,
      phone: null,
      passwordHash: null,
      role: 'USER',
      isPhoneVerified: false,
      signUpPending: false,
      notificationSettings: { ...DEFAULT_NOTIFICATION_SETTINGS },
      ...fields,
    };
    this.users.set(user.id, user);
    return user;
  }

  async completeSignUp(id: number): Promise<void> {
    const u = this.users.get(id);
    if (u) this.users.set(id, { ...u, signUpPending: false });
  }

  async markPhoneVerified(id: number): Promise<void> {
    const u = this.users.get(id);
    if (u) this.users.set(id, { ...u, isPhoneVerified: true });
  }

  async updateProfile(id: number, patch: UserProfilePatch): Promise<UserRecord | null> {
    const u = this.users.get(id);
    if (!u) return null;
    if (patch.email) {
      const owner = await this.findByEmail(patch.email);
      if (owner && owner.id !== id) throw new DomainError(ErrorCode.EMAIL_TAKEN, 'e-mail already used');
    }
    const next: UserRecord = {
      ...u,
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.email !== undefined ? { email: patch.email } : {}),
      ...(patch.passwordHash !== undefined ? { passwordHash: patch.passwordHash } : {}),
      ...(patch.notificationSettings !== undefined ? { notificationSettings: { ...patch.notificationSettings } } : {}),
    };
    this.users.set(id, next);
    return next;
  }
}
