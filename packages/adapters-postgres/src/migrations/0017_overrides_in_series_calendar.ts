import { sql, type Kysely } from 'kysely';

/**
 * An override is in its series' calendar (docs/protocol.md, "One occurrence of a series"): the
 * push planner keeps it so from now on, and this puts the live overrides written before in their
 * live series' calendar, each with a new version so every device pulls the change. Before, a
 * series moved to another calendar left its overrides in the old one: the web client showed them
 * there, CalDAV in the new one, and deleting the old calendar deleted them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update events o set calendar_uid = s.calendar_uid, version = nextval('record_version_seq'), updated_at = now()
    from events s
    where s.user_id = o.user_id and s.uid = o.recurring_event_uid and o.deleted is null and s.deleted is null and o.calendar_uid <> s.calendar_uid`.execute(db);
}

export async function down(): Promise<void> {
  // Nothing to undo: which calendar each override named before is not kept.
}
