import { sql, type Kysely } from 'kysely';

/**
 * The SMS budget (SMS_MAX_PER_IP_PER_HOUR): the send log keeps the requester's address, so the
 * codes one address had sent in the last hour are counted on every node.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table auth_otp_sends add column ip text null`.execute(db);
  await sql`create index auth_otp_sends_ip_idx on auth_otp_sends (ip, sent_at) where ip is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists auth_otp_sends_ip_idx`.execute(db);
  await sql`alter table auth_otp_sends drop column if exists ip`.execute(db);
}
