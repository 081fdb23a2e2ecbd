import { sql, type Kysely } from 'kysely';

/**
 * A series' record of its "all events" moves (docs/protocol.md, "One occurrence of a series"):
 * `moves`, `from/to` pairs of its start, oldest first, so an occurrence edit made offline before a
 * move follows it. Null for every event that was never moved that way; read only with its row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table events add column moves text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table events drop column if exists moves`.execute(db);
}
