import { fixedStatement, type Statement } from './batch-connection.js';
import { FIELD_TABLES, RECORD_TYPES, isLiveDefaultCalendar, perRecordType, type RecordRow, type RecordType, type RowWrite } from '@calsync/domain';
import { SQL_TYPE_OF_KIND, ident } from './record-columns.js';

/** One statement of a set-based write plan: all inserts (or all updates) of one type, as write indexes. */
export interface WriteStatement {
  readonly type: RecordType;
  readonly kind: 'insert' | 'update';
  readonly indexes: readonly number[];
}

/**
 * Groups writes into at most nine statements, in an order every constraint accepts: first the
 * calendar updates that leave their row not a live default (so the partial unique index "one live
 * default per user" never sees two), then per type in reference order (calendars, events, tasks,
 * reminders) the inserts, then the updates (a row may name a parent inserted just before; task
 * parents inside one multi-row INSERT are checked at the end of the statement). Throws when a
 * (type, uid) occurs twice: the port allows one write per row and batch.
 */
export function planWriteStatements(writes: readonly RowWrite[]): WriteStatement[] {
  const seen = new Set<string>();
  for (const w of writes) {
    const key = `${w.row.type}\u0000${w.row.uid}`;
    if (seen.has(key)) throw new Error(`a write batch names ${w.row.type} ${w.row.uid} twice`);
    seen.add(key);
  }
  const demotions: number[] = [];
  const groups = new Map<string, number[]>();
  writes.forEach((w, i) => {
    if (w.kind === 'update' && w.row.type === 'calendars' && !isLiveDefaultCalendar(w.row)) return void demotions.push(i);
    const key = `${w.row.type}:${w.kind}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [i]);
    else group.push(i);
  });
  const plan: WriteStatement[] = [];
  if (demotions.length > 0) plan.push({ type: 'calendars', kind: 'update', indexes: demotions });
  for (const type of RECORD_TYPES) {
    for (const kind of ['insert', 'update'] as const) {
      const indexes = groups.get(`${type}:${kind}`);
      if (indexes !== undefined) plan.push({ type, kind, indexes });
    }
  }
  return plan;
}


const asText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));


/**
 * The stamp and field columns every write sets, each with its SQL type and its text value of a row
 * (every driver sends text[] alike): `k.c0`, `k.c1`, … of the unnest, in this order.
 */
const WRITTEN_COLUMNS = perRecordType((type) => [
  { column: 'version', sqlType: 'bigint', value: (r: RecordRow): string | null => r.version.toString() },
  { column: 'updated_at', sqlType: 'timestamptz', value: (r: RecordRow): string | null => r.updatedAt },
  { column: 'deleted', sqlType: 'timestamptz', value: (r: RecordRow): string | null => r.deleted },
  ...FIELD_TABLES[type].map((f) => ({ column: f.column, sqlType: SQL_TYPE_OF_KIND[f.kind], value: (r: RecordRow) => asText(r.fields[f.name]) })),
]);

/** Each written column's values of `rows`, in `WRITTEN_COLUMNS` order. */
const writtenValues = (type: RecordType, rows: readonly RecordRow[]): (string | null)[][] => WRITTEN_COLUMNS[type].map((c) => rows.map(c.value));

/**
 * `unnest(cast($from as text[]), …) with ordinality as k(uid, c0, …, ord)`: the uids, then one array per
 * column (`count` of them), from parameter `$from` on.
 */
function unnestText(from: number, count: number): string {
  const arrays = Array.from({ length: count + 1 }, (_, i) => `cast($${from + i} as text[])`);
  const names = ['uid', ...Array.from({ length: count }, (_, i) => `c${i}`), 'ord'];
  return `unnest(${arrays.join(', ')}) with ordinality as k(${names.join(', ')})`;
}

const typed = (i: number, sqlType: string): string => `cast(k.c${i} as ${sqlType})`;

/**
 * The texts of the set-based writes, one per type, made once: they are fixed (values travel as
 * arrays), and composing them from query nodes at every push was a tenth of a push's JavaScript.
 */
const INSERT_TEXT = perRecordType((type) => {
  const columns = WRITTEN_COLUMNS[type];
  const n = columns.length;
  return `insert into ${ident(type)} (user_id, uid, created_at, id, ${columns.map((c) => ident(c.column)).join(', ')})
    overriding system value
    select cast($1 as integer), k.uid, ${typed(n, 'timestamptz')}, ${typed(n + 1, 'bigint')}, ${columns.map((c, i) => typed(i, c.sqlType)).join(', ')}
    from ${unnestText(2, n + 2)} order by k.ord`;
});

const UPDATE_TEXT = perRecordType((type) => {
  const columns = WRITTEN_COLUMNS[type];
  const n = columns.length;
  const [count, user] = [`$${n + 3}`, `$${n + 4}`];
  return `with written as (
      update ${ident(type)} as t set ${columns.map((c, i) => `${ident(c.column)} = ${typed(i, c.sqlType)}`).join(', ')}
      from ${unnestText(1, n + 1)}
      where t.id = ${typed(n, 'bigint')} and t.uid = k.uid
      returning t.user_id)
    select case when count(*) = cast(${count} as integer) and coalesce(bool_and(user_id = cast(${user} as integer)), true) then 0
      else cast(concat('update of ${type}: ', count(*), ' rows written, ', count(*) filter (where user_id = cast(${user} as integer)),
        ' of them the user''s, ', cast(${count} as integer), ' expected') as integer) end as checked
    from written`;
});

/**
 * The INSERT of rows of one type in one statement, under the ids the unit of work drew for them
 * (`overriding system value`: the identity column only ever gets values from its own sequence, drawn
 * by `reserve`). It returns nothing, so it can travel with the next statement of the unit.
 * Exported so the plan test explains the very statement the store runs.
 */
export function insertRowsQuery(userId: number, type: RecordType, rows: readonly RecordRow[]): Statement {
  return fixedStatement(INSERT_TEXT[type], [
    userId,
    rows.map((r) => r.uid),
    ...writtenValues(type, rows),
    rows.map((r) => r.createdAt),
    rows.map((r) => String(r.id)),
  ]);
}

/**
 * The UPDATE of rows of one type (addressed by the id the prefetch read, and locked, under the
 * user's lock, and by uid) in one statement, which checks itself: it fails (so the unit of work
 * rolls back) unless it updated exactly the given rows and all of them are this user's. Only the
 * primary key is a join condition: with `user_id` in the condition a generic plan could read all of
 * the user's rows through a (user_id, …) index and hash them, since it estimates a user's rows from
 * the table's average. The failing branch casts a text that depends on the rows to integer, so the
 * planner cannot fold it into an error at planning time.
 */
export function updateRowsQuery(userId: number, type: RecordType, rows: readonly RecordRow[]): Statement {
  return fixedStatement(UPDATE_TEXT[type], [
    rows.map((r) => r.uid),
    ...writtenValues(type, rows),
    rows.map((r) => String(r.id)),
    rows.length,
    userId,
  ]);
}

/**
 * The departures of a write batch's moved root events (`RowWrite.leaves`) in one statement: each
 * is kept (or its version and time raised) under the calendar it leaves, and any departure of it
 * from the calendar it arrives at is dropped (it is back there). Null when no write moves a root.
 */
export function departuresQuery(userId: number, writes: readonly RowWrite[]): Statement | null {
  const moves = writes.filter((w): w is RowWrite & { leaves: string } => w.leaves !== undefined);
  if (moves.length === 0) return null;
  return fixedStatement(DEPARTURES_TEXT, [
    moves.map((w) => w.row.uid),
    moves.map((w) => w.leaves),
    moves.map((w) => String(w.row.fields.calendarUid)),
    moves.map((w) => w.row.version.toString()),
    moves.map((w) => w.row.updatedAt),
    userId,
  ]);
}

const DEPARTURES_TEXT = `with k as (
    select * from unnest(cast($1 as text[]), cast($2 as text[]), cast($3 as text[]), cast($4 as text[]), cast($5 as text[])) as k(uid, left_uid, arrived_uid, version, at)),
  back as (
    delete from event_departures x using k where x.user_id = cast($6 as integer) and x.calendar_uid = k.arrived_uid and x.uid = k.uid)
  insert into event_departures (user_id, calendar_uid, uid, version, departed_at)
  select cast($6 as integer), k.left_uid, k.uid, cast(k.version as bigint), cast(k.at as timestamptz) from k
  on conflict (user_id, calendar_uid, uid) do update set version = excluded.version, departed_at = excluded.departed_at`;
