import { sql, type Kysely, type Selectable } from 'kysely';
import {
  DEFAULT_NOTIFICATION_SETTINGS,
  DomainError,
  ErrorCode,
  type NewPhoneUser,
  type NotificationSettings,
  type UserProfilePatch,
  type UserRecord,
  type UserStore,
} from '@calsync/domain';
import type { DB, UsersTable } from '../schema.js';
import { isUniqueViolation } from './auth-tables.js';

/** The `notification_settings` column as the domain's settings: a key the stored value lacks takes its default. */
export function notificationSettingsFromSql(raw: unknown): NotificationSettings {
  const settings = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Partial<NotificationSettings> | null;
  return { ...DEFAULT_NOTIFICATION_SETTINGS, ...settings };
}

function toUser(row: Selectable<UsersTable>): UserRecord {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    passwordHash: row.password_hash,
    role: row.role,
    isPhoneVerified: row.is_phone_verified,
    signUpPending: row.sign_up_pending,
    notificationSettings: notificationSettingsFromSql(row.notification_settings),
  };
}

/** UserStore on the `users` table (migration 0001), PostgreSQL or PGlite. */
export class PostgresUserStore implements UserStore {
  constructor(private readonly db: Kysely<DB>) {}

  async findById(id: number): Promise<UserRecord | null> {
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async findByIds(ids: readonly number[]): Promise<UserRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.selectFrom('users').selectAll().where('id', '=', sql<number>`any(cast(${[...ids]} as integer[]))`).execute();
    return rows.map(toUser);
  }

  async findByPhone(phone: string): Promise<UserRecord | null> {
    const row = await this.db.selectFrom('users').selectAll().where('phone', '=', phone).executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async findByEmail(email: string): Promise<UserRecord | null> {
    const row = await this.db
      .selectFrom('users')
      .selectAll()
      .where(sql<string>`lower(email)`, '=', email.toLowerCase())
      .executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async createPhoneUser(input: NewPhoneUser): Promise<{ user: UserRecord; created: boolean }> {
    const row = await this.db
      .insertInto('users')
      .values({ phone: input.phone, name: input.name, email: null, password_hash: null, is_phone_verified: true, sign_up_pending: true, created_at: input.now, updated_at: input.now })
      .onConflict((oc) => oc.column('phone').doNothing())
      .returningAll()
      .executeTakeFirst();
    const made = row ? toUser(row) : null;
    if (made) return { user: made, created: true };
    const existing = await this.findByPhone(input.phone);
    if (!existing) throw new Error('user vanished during sign-up');
    return { user: existing, created: false };
  }

  async completeSignUp(id: number): Promise<void> {
    await this.db.updateTable('users').set({ sign_up_pending: false }).where('id', '=', id).execute();
  }

  async markPhoneVerified(id: number, now: string): Promise<void> {
    await this.db.updateTable('users').set({ is_phone_verified: true, updated_at: now }).where('id', '=', id).execute();
  }

  async updateProfile(id: number, patch: UserProfilePatch, now: string): Promise<UserRecord | null> {
    try {
      const row = await this.db
        .updateTable('users')
        .set({
          updated_at: now,
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.email !== undefined ? { email: patch.email } : {}),
          ...(patch.passwordHash !== undefined ? { password_hash: patch.passwordHash } : {}),
          ...(patch.notificationSettings !== undefined ? { notification_settings: JSON.stringify(patch.notificationSettings) } : {}),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toUser(row) : null;
    } catch (e) {
      if (isUniqueViolation(e)) throw new DomainError(ErrorCode.EMAIL_TAKEN, 'e-mail already used');
      throw e;
    }
  }
}
