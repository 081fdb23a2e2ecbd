import { sql, type Kysely } from 'kysely';
import type { KeptRender, RenderStore } from '@calsync/domain';
import type { DB } from '../schema.js';

/** RenderStore on PostgreSQL or PGlite (`dav_renders`, migration 0012): one statement per call. */
export class PostgresRenderStore implements RenderStore {
  constructor(private readonly db: Kysely<DB>) {}

  async readRenders(userId: number, uids: readonly string[]): Promise<KeptRender[]> {
    if (uids.length === 0) return [];
    const { rows } = await sql<{ uid: string; render_key: string; body: string }>`
      select uid, render_key, body from dav_renders where user_id = ${userId} and uid = any(cast(${[...uids]} as text[]))`.execute(this.db);
    return rows.map((r) => ({ uid: r.uid, key: r.render_key, text: r.body }));
  }

  async keepRenders(userId: number, renders: readonly KeptRender[]): Promise<void> {
    // One row per uid (the last): an upsert may not touch a row twice.
    const last = [...new Map(renders.map((r) => [r.uid, r])).values()];
    if (last.length === 0) return;
    await sql`
      insert into dav_renders (user_id, uid, render_key, body)
      select ${userId}, x.uid, x.render_key, x.body
      from unnest(cast(${last.map((r) => r.uid)} as text[]), cast(${last.map((r) => r.key)} as text[]), cast(${last.map((r) => r.text)} as text[])) as x(uid, render_key, body)
      on conflict (user_id, uid) do update set render_key = excluded.render_key, body = excluded.body`.execute(this.db);
  }

  async dropRenders(userId: number, uids: readonly string[]): Promise<void> {
    if (uids.length === 0) return;
    await sql`delete from dav_renders where user_id = ${userId} and uid = any(cast(${[...uids]} as text[]))`.execute(this.db);
  }
}
