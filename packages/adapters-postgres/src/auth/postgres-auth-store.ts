import { sql, type Kysely, type Selectable } from 'kysely';
import type {
  AuthStore,
  DeviceInput,
  DeviceRecord,
  NewRefreshToken,
  OtpRecord,
  RefreshTokenRecord,
  SessionRecord,
  SessionRevokeReason,
} from '@calsync/domain';
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
 * AuthStore on PostgreSQL or PGlite (migration 0002). Rotation and code consumption are single
 * conditional UPDATEs, so concurrent callers cannot both win; starting a family takes the
 * per-user advisory lock so two sign-ins of one device serialize.
 */
export class PostgresAuthStore implements AuthStore {
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
        .set({ revoked_at: now })
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

  async startSession(session: Omit<SessionRecord, 'revokedAt'>, firstToken: NewRefreshToken): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${session.userId})`.execute(trx);
      let deviceId: string | null = null;
      if (session.deviceUid !== null) {
        const device = await trx
          .selectFrom('devices')
          .select('id')
          .where('user_id', '=', session.userId)
          .where('uid', '=', session.deviceUid)
          .executeTakeFirst();
        if (!device) throw new Error('startSession: unknown device');
        deviceId = device.id;
      }
      await trx
        .updateTable('auth_sessions')
        .set({ revoked_at: session.createdAt, revoke_reason: 'superseded' })
        .where('user_id', '=', session.userId)
        .where('revoked_at', 'is', null)
        .where((eb) => (deviceId === null ? eb('device_id', 'is', null) : eb('device_id', '=', deviceId)))
        .execute();
      await trx
        .insertInto('auth_sessions')
        .values({ id: session.id, user_id: session.userId, device_id: deviceId, created_at: session.createdAt, revoked_at: null, revoke_reason: null })
        .execute();
      await trx.insertInto('auth_refresh_tokens').values({ ...tokenRow(firstToken), replaced_at: null }).execute();
    });
  }

  async findSession(id: string): Promise<SessionRecord | null> {
    const row = await this.db
      .selectFrom('auth_sessions as s')
      .leftJoin('devices as d', 'd.id', 's.device_id')
      .select(['s.id', 's.user_id', 's.created_at', 's.revoked_at', 'd.uid'])
      .where('s.id', '=', id)
      .executeTakeFirst();
    if (!row) return null;
    return { id: row.id, userId: row.user_id, deviceUid: row.uid ?? null, createdAt: iso(row.created_at), revokedAt: isoOrNull(row.revoked_at) };
  }

  async revokeSession(id: string, reason: SessionRevokeReason, now: string): Promise<void> {
    await this.db
      .updateTable('auth_sessions')
      .set({ revoked_at: now, revoke_reason: reason })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
  }

  async findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | null> {
    const row = await this.db.selectFrom('auth_refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    if (!row) return null;
    return {
      tokenHash: row.token_hash,
      sessionId: row.session_id,
      parentHash: row.parent_hash,
      createdAt: iso(row.created_at),
      expiresAt: iso(row.expires_at),
      replacedAt: isoOrNull(row.replaced_at),
    };
  }

  async rotateRefreshToken(parentHash: string, child: NewRefreshToken, now: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      // Conditional UPDATE: a concurrent rotation waits for the row lock, re-checks, and finds it replaced.
      const parent = await trx
        .updateTable('auth_refresh_tokens')
        .set({ replaced_at: now })
        .where('token_hash', '=', parentHash)
        .where('replaced_at', 'is', null)
        .returning('token_hash')
        .executeTakeFirst();
      if (!parent) return false;
      await trx.insertInto('auth_refresh_tokens').values({ ...tokenRow(child), replaced_at: null }).execute();
      return true;
    });
  }

  async findOtp(phone: string): Promise<OtpRecord | null> {
    const row = await this.db.selectFrom('auth_otp_codes').selectAll().where('phone', '=', phone).executeTakeFirst();
    if (!row) return null;
    return {
      phone: row.phone,
      codeHmac: row.code_hmac,
      name: row.name,
      createdAt: iso(row.created_at),
      expiresAt: iso(row.expires_at),
      attempts: row.attempts,
      consumedAt: isoOrNull(row.consumed_at),
    };
  }

  async saveOtp(otp: OtpRecord): Promise<void> {
    const values = {
      code_hmac: otp.codeHmac,
      name: otp.name,
      created_at: otp.createdAt,
      expires_at: otp.expiresAt,
      attempts: otp.attempts,
      consumed_at: otp.consumedAt,
    };
    await this.db
      .insertInto('auth_otp_codes')
      .values({ phone: otp.phone, ...values })
      .onConflict((oc) => oc.column('phone').doUpdateSet(values))
      .execute();
  }

  async deleteOtp(phone: string): Promise<void> {
    await this.db.deleteFrom('auth_otp_codes').where('phone', '=', phone).execute();
  }

  async recordOtpSend(phone: string, at: string): Promise<void> {
    await this.db.insertInto('auth_otp_sends').values({ phone, sent_at: at }).execute();
  }

  async listOtpSendsSince(phone: string, since: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('auth_otp_sends')
      .select('sent_at')
      .where('phone', '=', phone)
      .where('sent_at', '>=', new Date(since))
      .orderBy('sent_at')
      .execute();
    return rows.map((r) => iso(r.sent_at));
  }

  async incrementOtpAttempts(phone: string, codeHmac: string): Promise<number | null> {
    const row = await this.db
      .updateTable('auth_otp_codes')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('phone', '=', phone)
      .where('code_hmac', '=', codeHmac)
      .returning('attempts')
      .executeTakeFirst();
    return row ? row.attempts : null;
  }

  async consumeOtp(phone: string, codeHmac: string, now: string, maxAttempts: number): Promise<boolean> {
    const row = await this.db
      .updateTable('auth_otp_codes')
      .set({ consumed_at: now })
      .where('phone', '=', phone)
      .where('code_hmac', '=', codeHmac)
      .where('consumed_at', 'is', null)
      .where('expires_at', '>', new Date(now))
      .where('attempts', '<', maxAttempts)
      .returning('phone')
      .executeTakeFirst();
    return row !== undefined;
  }
}

function tokenRow(t: NewRefreshToken) {
  return { token_hash: t.tokenHash, session_id: t.sessionId, parent_hash: t.parentHash, created_at: t.createdAt, expires_at: t.expiresAt };
}
