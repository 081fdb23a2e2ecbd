import type { Kysely } from 'kysely';
import type { OtpRecord, OtpStore } from '@calsync/domain';
import type { DB } from '../schema.js';
import { iso, isoOrNull, withAuthTables, type AuthDB } from './auth-tables.js';

/**
 * OtpStore on PostgreSQL or PGlite (migration 0002). Counting a try and consuming a code are
 * single conditional UPDATEs, so concurrent callers cannot both win.
 */
export class PostgresOtpStore implements OtpStore {
  private readonly db: Kysely<AuthDB>;

  constructor(db: Kysely<DB>) {
    this.db = withAuthTables(db);
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

  async recordOtpSend(phone: string, at: string, ip: string | null): Promise<void> {
    await this.db.insertInto('auth_otp_sends').values({ phone, sent_at: at, ip }).execute();
  }

  async countOtpSendsSince(since: string, ip?: string): Promise<number> {
    let query = this.db.selectFrom('auth_otp_sends').select((eb) => eb.fn.countAll<string>().as('n')).where('sent_at', '>=', new Date(since));
    if (ip !== undefined) query = query.where('ip', '=', ip);
    return Number((await query.executeTakeFirstOrThrow()).n);
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
