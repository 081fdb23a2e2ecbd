import { sql, type Kysely } from 'kysely';

const RECORD_TABLES = ['calendars', 'events', 'tasks', 'reminders'] as const;

/**
 * Each record table's (user_id, version) index becomes partial, `where version is not null`
 * (version is never null, so it holds the same rows). PostgreSQL uses a partial index only for a
 * statement whose conditions imply its predicate: a pull's `version > …` and a `max(version)`
 * do; a probe of one row by `user_id = … and uid = …` does not, so the (user_id, uid) key is the
 * only index it can use.
 *
 * Why: the server's statements are prepared once per connection and keep one generic plan, made
 * at their first execution. On a table PostgreSQL has not analyzed yet (a new installation, the
 * first minute of a new user's upload) both indexes looked equally cheap, and the plan it kept
 * could read the user's (user_id, version) entries and filter on uid: every probe of a
 * 1,000-item push then read all of the user's rows (a user with 10,000 events: 164,000 buffers
 * for one prefetch), and the foreign-key checks of PostgreSQL probe the same way.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  for (const table of RECORD_TABLES) {
    await run(`create index ${table}_user_version_partial_idx on ${table} (user_id, version) where version is not null`);
    await run(`drop index ${table}_user_version_idx`);
    await run(`alter index ${table}_user_version_partial_idx rename to ${table}_user_version_idx`);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  for (const table of RECORD_TABLES) {
    await run(`create index ${table}_user_version_full_idx on ${table} (user_id, version)`);
    await run(`drop index ${table}_user_version_idx`);
    await run(`alter index ${table}_user_version_full_idx rename to ${table}_user_version_idx`);
  }
}
