import { sql, type RawBuilder } from 'kysely';
import { FIELD_TABLES, RECORD_TYPES, isLiveDefaultCalendar, type RecordRow, type RecordType, type RowWrite } from '@calsync/domain';
import { SQL_TYPE_OF_KIND } from './record-columns.js';

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

/** A column of a set-based statement: its name, SQL type and the text form of each row's value. */
interface ColumnArray {
  readonly column: string;
  readonly sqlType: string;
  readonly values: (string | null)[];
}

const asText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

/** The stamp and field columns every write sets, one text array per column (every driver sends text[] alike). */
function columnArrays(type: RecordType, rows: readonly RecordRow[]): ColumnArray[] {
  return [
    { column: 'version', sqlType: 'bigint', values: rows.map((r) => r.version.toString()) },
    { column: 'updated_at', sqlType: 'timestamptz', values: rows.map((r) => r.updatedAt) },
    { column: 'deleted', sqlType: 'timestamptz', values: rows.map((r) => r.deleted) },
    ...FIELD_TABLES[type].map((f) => ({ column: f.column, sqlType: SQL_TYPE_OF_KIND[f.kind], values: rows.map((r) => asText(r.fields[f.name])) })),
  ];
}

/** `unnest(cast($1 as text[]), …) with ordinality as k(uid, c1, …, ord)` over the given columns. */
function unnestSource(uids: readonly string[], columns: readonly ColumnArray[]): RawBuilder<unknown> {
  const arrays = [sql`cast(${[...uids]} as text[])`, ...columns.map((c) => sql`cast(${c.values} as text[])`)];
  const names = ['uid', ...columns.map((_, i) => `c${i}`), 'ord'];
  return sql`unnest(${sql.join(arrays)}) with ordinality as k(${sql.join(names.map((n) => sql.ref(n)))})`;
}

const typed = (i: number, c: ColumnArray): RawBuilder<unknown> => sql`cast(${sql.ref(`k.c${i}`)} as ${sql.raw(c.sqlType)})`;

/**
 * The INSERT of rows of one type in one statement, under the ids the unit of work drew for them
 * (`overriding system value`: the identity column only ever gets values from its own sequence, drawn
 * by `reserve`). It returns nothing, so it can travel with the next statement of the unit.
 * Exported so the plan test explains the very statement the store runs.
 */
export function insertRowsQuery(userId: number, type: RecordType, rows: readonly RecordRow[]): RawBuilder<never> {
  const columns = columnArrays(type, rows);
  const extra: ColumnArray[] = [
    { column: 'created_at', sqlType: 'timestamptz', values: rows.map((r) => r.createdAt) },
    { column: 'id', sqlType: 'bigint', values: rows.map((r) => String(r.id)) },
  ];
  const source = unnestSource(
    rows.map((r) => r.uid),
    [...columns, ...extra],
  );
  return sql<never>`
    insert into ${sql.table(type)} (user_id, uid, created_at, id, ${sql.join(columns.map((c) => sql.ref(c.column)))})
    overriding system value
    select cast(${userId} as integer), k.uid, ${typed(columns.length, extra[0]!)}, ${typed(columns.length + 1, extra[1]!)}, ${sql.join(columns.map((c, i) => typed(i, c)))}
    from ${source} order by k.ord`;
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
export function updateRowsQuery(userId: number, type: RecordType, rows: readonly RecordRow[]): RawBuilder<{ checked: number }> {
  const columns = columnArrays(type, rows);
  const idColumn: ColumnArray = { column: 'id', sqlType: 'bigint', values: rows.map((r) => String(r.id)) };
  return sql<{ checked: number }>`
    with written as (
      update ${sql.table(type)} as t set ${sql.join(columns.map((c, i) => sql`${sql.ref(c.column)} = ${typed(i, c)}`))}
      from ${unnestSource(
        rows.map((r) => r.uid),
        [...columns, idColumn],
      )}
      where t.id = ${typed(columns.length, idColumn)} and t.uid = k.uid
      returning t.user_id)
    select case when count(*) = cast(${rows.length} as integer) and coalesce(bool_and(user_id = cast(${userId} as integer)), true) then 0
      else cast(concat('update of ${sql.raw(type)}: ', count(*), ' rows written, ', count(*) filter (where user_id = cast(${userId} as integer)),
        ' of them the user''s, ', cast(${rows.length} as integer), ' expected') as integer) end as checked
    from written`;
}
