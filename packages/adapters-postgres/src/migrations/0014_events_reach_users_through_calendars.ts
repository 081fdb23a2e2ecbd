import { sql, type Kysely } from 'kysely';

/**
 * An event reaches its user through its calendar: `(user_id, calendar_uid)` is a required foreign
 * key to `calendars (user_id, uid)`, and a calendar's `user_id` references `users`. The events'
 * own `user_id` foreign key proved nothing more, yet PostgreSQL checked it for every event
 * written: one row-locking lookup of the user's row per event, about a seventh of PostgreSQL's CPU
 * for a batch of new events (bench/PERFORMANCE.md, twenty-ninth pass). It is dropped.
 *
 * What it also carried was the cascade when a user row is deleted (nothing in the service deletes
 * one; an operator may). That stays as it was through a trigger: before the user row goes, the
 * user's reminders (which reference events without a cascade) and then the user's events are
 * deleted, so the remaining `on delete cascade` keys remove the calendars and everything else.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table events drop constraint events_user_id_fkey`.execute(db);
  await sql`create function users_delete_events() returns trigger language plpgsql as $$
    begin
      delete from reminders where user_id = old.id;
      delete from events where user_id = old.id;
      return old;
    end $$`.execute(db);
  await sql`create trigger users_delete_events before delete on users for each row execute function users_delete_events()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger users_delete_events on users`.execute(db);
  await sql`drop function users_delete_events()`.execute(db);
  await sql`alter table events add constraint events_user_id_fkey foreign key (user_id) references users (id) on delete cascade`.execute(db);
}
