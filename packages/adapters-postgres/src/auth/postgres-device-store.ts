import type { Kysely, Selectable } from 'kysely';
import type { DeviceInput, DeviceRecord, DeviceStore } from '@calsync/domain';
import type { DB, DevicesTable } from '../schema.js';
import { iso, isoOrNull, withAuthTables, type AuthDB } from './auth-tables.js';

function toDevice(row: Selectable<DevicesTable>): DeviceRecord {
  return {
    userId: row.user_id,
    uid: row.uid,
    platform: row.platform,
    name: row.name,
    fcmToken: row.fcm_token,
    createdAt: iso(row.created_at),
    lastSeenAt: iso(row.last_seen_at),
    revokedAt: isoOrNull(row.revoked_at),
  };
}

/**
 * DeviceStore on PostgreSQL or PGlite (`devices`, migration 0001; families in `auth_sessions`).
 * Revoking a device and ending its families is one transaction.
 */
export class PostgresDeviceStore implements DeviceStore {
  private readonly db: Kysely<AuthDB>;

  constructor(db: Kysely<DB>) {
    this.db = withAuthTables(db);
  }

  async upsertDevice(userId: number, input: DeviceInput, now: string): Promise<DeviceRecord> {
    const row = await this.db
      .insertInto('devices')
      .values({
        user_id: userId,
        uid: input.uid,
        platform: input.platform ?? '',
        name: input.name ?? '',
        fcm_token: input.fcmToken ?? null,
        created_at: now,
        last_seen_at: now,
        revoked_at: null,
      })
      .onConflict((oc) =>
        oc.columns(['user_id', 'uid']).doUpdateSet({
          last_seen_at: now,
          revoked_at: null,
          ...(input.platform !== undefined ? { platform: input.platform } : {}),
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.fcmToken !== undefined ? { fcm_token: input.fcmToken } : {}),
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return toDevice(row);
  }

  async listActiveDevices(userId: number): Promise<DeviceRecord[]> {
    const rows = await this.db
      .selectFrom('devices')
      .selectAll()
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .orderBy('id')
      .execute();
    return rows.map(toDevice);
  }

  async renameDevice(userId: number, uid: string, name: string): Promise<DeviceRecord | null> {
    const row = await this.db
      .updateTable('devices')
      .set({ name })
      .where('user_id', '=', userId)
      .where('uid', '=', uid)
      .where('revoked_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    return row === undefined ? null : toDevice(row);
  }

  async touchDevice(userId: number, uid: string, now: string): Promise<void> {
    await this.db.updateTable('devices').set({ last_seen_at: now }).where('user_id', '=', userId).where('uid', '=', uid).execute();
  }

  async clearFcmToken(userId: number, uid: string, token: string): Promise<void> {
    await this.db.updateTable('devices').set({ fcm_token: null }).where('user_id', '=', userId).where('uid', '=', uid).where('fcm_token', '=', token).execute();
  }

  async revokeDevice(userId: number, uid: string, now: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const device = await trx
        .updateTable('devices')
        .set({ revoked_at: now, app_password_hash: null })
        .where('user_id', '=', userId)
        .where('uid', '=', uid)
        .where('revoked_at', 'is', null)
        .returning('id')
        .executeTakeFirst();
      if (!device) return false;
      await trx
        .updateTable('auth_sessions')
        .set({ revoked_at: now, revoke_reason: 'device-revoked' })
        .where('device_id', '=', device.id)
        .where('revoked_at', 'is', null)
        .execute();
      return true;
    });
  }

  async setAppPassword(userId: number, uid: string, passwordHash: string): Promise<void> {
    await this.db.updateTable('devices').set({ app_password_hash: passwordHash }).where('user_id', '=', userId).where('uid', '=', uid).execute();
  }

  async findByAppPassword(passwordHash: string): Promise<DeviceRecord | null> {
    const row = await this.db
      .selectFrom('devices')
      .selectAll()
      .where('app_password_hash', '=', passwordHash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return row ? toDevice(row) : null;
  }
}
