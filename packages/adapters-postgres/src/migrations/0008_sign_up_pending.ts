import { sql, type Kysely } from 'kysely';

/**
 * A user whose sign-up may not have made the default calendar yet (`UserRecord.signUpPending`):
 * set when a phone sign-up creates the user, cleared once "Personal" exists, so a crash between
 * the two is mended at the next sign-in. Users from before this migration have their calendar.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users add column sign_up_pending boolean not null default false`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users drop column if exists sign_up_pending`.execute(db);
}
