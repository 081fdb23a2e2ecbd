import type pg from 'pg';

const OTHER_USERS = 1000;

/** Rows of `events` now (planner estimate after ANALYZE is enough for a report; exact on small tables). */
export async function eventRows(client: pg.Client): Promise<number> {
  return Number((await client.query('SELECT count(*)::int AS n FROM events')).rows[0].n);
}

/**
 * Fills `events` with rows of 1,000 other users until they hold `total` filler rows, in one
 * set-based INSERT … SELECT over generate_series (a million rows in seconds, not a million pushes).
 */
export async function fillOtherUsers(client: pg.Client, total: number): Promise<number> {
  const countFill = async () => Number((await client.query("SELECT count(*)::int AS n FROM events WHERE uid LIKE 'ev-fill-%'")).rows[0].n);
  const have = await countFill();
  const users = Number((await client.query("SELECT count(*)::int AS n FROM users WHERE phone LIKE '+1999%'")).rows[0].n);
  if (users === 0) {
    await client.query(
      `INSERT INTO users (name, phone) SELECT 'other ' || g, '+1999' || lpad(g::text, 7, '0') FROM generate_series(1, $1) g`,
      [OTHER_USERS],
    );
    await client.query(
      `INSERT INTO calendars (user_id, uid, version, created_at, updated_at, name, is_default)
       SELECT id, 'cal-other', nextval('record_version_seq'), now(), now(), 'Other', false FROM users WHERE phone LIKE '+1999%'`,
    );
  }
  const missing = total - have;
  if (missing > 0) {
    await client.query(
      `INSERT INTO events (user_id, uid, version, created_at, updated_at, calendar_uid, title, start_time, end_time, all_day)
       SELECT u.id, 'ev-fill-' || g, nextval('record_version_seq'), now(), now(), 'cal-other', 'filler ' || g,
              now(), now() + interval '1 hour', false
       FROM generate_series($1::int, $2::int) g
       JOIN LATERAL (SELECT id FROM users WHERE phone = '+1999' || lpad((1 + g % $3)::text, 7, '0')) u ON true`,
      [have + 1, total, OTHER_USERS],
    );
  }
  await settle(client);
  return countFill();
}

/**
 * Gives `userId` `total` events of its own in `calendarUid` (set-based), each with a push receipt
 * as a real device's earlier pushes would have left: what a push of that user must not read through.
 */
export async function fillOwnRows(client: pg.Client, userId: number, calendarUid: string, total: number): Promise<void> {
  const have = Number((await client.query("SELECT count(*)::int AS n FROM events WHERE user_id = $1 AND uid LIKE 'ev-own-%'", [userId])).rows[0].n);
  if (total <= have) return;
  await client.query(
    `INSERT INTO events (user_id, uid, version, created_at, updated_at, calendar_uid, title, start_time, end_time, all_day)
     SELECT $1, 'ev-own-' || g, nextval('record_version_seq'), now(), now(), $2, 'own ' || g, now(), now() + interval '1 hour', false
     FROM generate_series($3::int, $4::int) g`,
    [userId, calendarUid, have + 1, total],
  );
  await client.query(
    `INSERT INTO push_receipts (user_id, entity_type, uid, fingerprint, result)
     SELECT $1, 'EVENT', 'ev-own-' || g, sha256(g::text::bytea), '{"status":"created"}'::jsonb
     FROM generate_series($2::int, $3::int) g`,
    [userId, have + 1, total],
  );
  await settle(client);
}

/**
 * After a fill: statistics for the planner, and the fill's dirty pages written and synced now. A
 * fill writes a million rows in seconds, about a gigabyte of WAL, which starts a checkpoint that
 * PostgreSQL spreads over the next four and a half minutes (checkpoint_completion_target 0.9 of
 * checkpoint_timeout 5 min) and ends by syncing every file it wrote. That debt, which no server
 * growing by pushes carries, landed on whatever workload was running then: a stall of up to 1.9 s
 * at the open loop's 10 % level in one run, and none in another. CHECKPOINT pays it before anything is timed.
 */
async function settle(client: pg.Client): Promise<void> {
  await client.query('ANALYZE');
  try {
    await client.query('CHECKPOINT');
  } catch (error) {
    // A role without pg_checkpoint (BENCH_DATABASE_URL may name one) runs the bench as before.
    console.log(`bench: CHECKPOINT after the fill failed (${error instanceof Error ? error.message : String(error)}): the fill's checkpoint may land on a timed workload`);
  }
}
