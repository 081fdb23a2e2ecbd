import { sql, type Kysely } from 'kysely';

/**
 * Rendered iCalendar texts of CalDAV objects (`RenderStore`): one row per object (its root's uid),
 * replaced when the object is rendered again, so a freshly started server answers a calendar app's
 * first sync from the kept texts instead of rendering every object. `render_key` names the rows and
 * versions the text was rendered from; a reader ignores a text whose key is not its own.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table dav_renders (
    user_id integer not null references users(id) on delete cascade,
    uid text not null,
    render_key text not null,
    body text not null,
    primary key (user_id, uid)
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists dav_renders`.execute(db);
}
