import { sql, type Kysely } from 'kysely';
import type { NewRefreshToken, RefreshTokenRecord, SessionRecord, SessionRevokeReason, SessionStore } from '@calsync/domain';
import type { DB } from '../schema.js';
import { iso, isoOrNull, withAuthTables, type AuthDB } from './auth-tables.js';

/**
 * SessionStore on PostgreSQL or PGlite (migration 0002). Rotation is a single conditional UPDATE,
 * so concurrent rotations cannot both win; starting a family takes the per-user advisory lock so
 * two sign-ins of one device serialize.
 */
export class PostgresSessionStore implements SessionStore {
  private readonly db: Kysely<AuthDB>;

  constructor(db: Kysely<DB>) {
    this.db = withAuthTables(db);
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
}

function tokenRow(t: NewRefreshToken) {
  return { token_hash: t.tokenHash, session_id: t.sessionId, parent_hash: t.parentHash, created_at: t.createdAt, expires_at: t.expiresAt };
}
