import { sql, type Kysely } from 'kysely';

/**
 * The link of a series made by "this and following" to the series it continues (docs/protocol.md,
 * "One occurrence of a series"): `split_from_uid`, the earlier series' uid (a link, not a foreign
 * key: deleting the earlier part keeps this one), and `split_from_start`, the original start of the
 * earlier series' occurrence where this one begins. A push finds a series' continuations by the
 * live partial index, so an occurrence edit made offline against the earlier series follows the
 * split.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table events add column split_from_uid text, add column split_from_start text`.execute(db);
  await sql`create index events_user_split_from_live_idx on events (user_id, split_from_uid) where split_from_uid is not null and deleted is null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists events_user_split_from_live_idx`.execute(db);
  await sql`alter table events drop column if exists split_from_uid, drop column if exists split_from_start`.execute(db);
}
