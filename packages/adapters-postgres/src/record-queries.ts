import { sql, type RawBuilder } from 'kysely';
import { FIELD_TABLES, perRecordType, RECORD_TYPES, type Departure, type ObjectScope, type ReceiptKey, type RecordType } from '@calsync/domain';
import { SQL_TYPE_OF_KIND, ident } from './record-columns.js';
import { fixedStatement, type Statement } from './batch-connection.js';
import { matchingReceiptsText, receiptKeyArrays } from './receipt-queries.js';
import { OCCURRENCE_FIELD_SPECS, recordSelectList, type SqlRecordRow } from './record-mapping.js';

/** `select <record columns> from <type> where user_id = $user and <condition> <tail>`: every record read is scoped by user. */
export function recordQuery(type: RecordType, userId: number, condition: RawBuilder<unknown>, tail: RawBuilder<unknown>): RawBuilder<SqlRecordRow> {
  return sql<SqlRecordRow>`select ${recordSelectList(type)} from ${sql.table(type)} where user_id = ${userId} and ${condition} ${tail}`;
}

/**
 * The occurrence read (`readEventWindow`) in one statement: the expander's columns of each live
 * event that may occur between `lo` and `hi` (ISO text a day wide: see `eventWindowBounds`), in id
 * order, each with its calendar's zone when that calendar is live (`calendar_live` true).
 */
export function eventWindowQuery(userId: number, lo: string, hi: string): RawBuilder<SqlRecordRow> {
  const columns = sql.join([sql`e.uid`, ...OCCURRENCE_FIELD_SPECS.map((f) => sql.ref(`e.${f.column}`))]);
  return sql<SqlRecordRow>`select ${columns}, c.timezone as calendar_zone, c.uid is not null as calendar_live
    from events e left join calendars c on c.user_id = e.user_id and c.uid = e.calendar_uid and c.deleted is null
    where e.user_id = ${userId} and e.deleted is null
      and (e.rrule is not null or e.recurring_event_uid is not null or (e.start_time < ${hi} and e.end_time > ${lo}))
    order by e.id`;
}

/**
 * The live rows of `type` whose reference column holds one of `parentUids`, locked, in id order
 * (each reference column has its partial index on live rows, migration 0003).
 */
export function liveReferencingQuery(type: RecordType, userId: number, column: string, parentUids: readonly string[]): RawBuilder<SqlRecordRow> {
  return recordQuery(type, userId, sql`${sql.ref(column)} = any(cast(${[...parentUids]} as text[])) and deleted is null`, sql`order by id for update`);
}

/**
 * One type's pull read on its own: rows with after < version <= upTo, by version, at most `limit`
 * (the shape of each type's branch in `readAllChangesQuery`). The EXPLAIN check in test-support
 * runs it to show that this read takes the (user_id, version) index.
 */
export function readChangesQuery(type: RecordType, userId: number, afterVersion: bigint, upToVersion: bigint, limit: number): RawBuilder<SqlRecordRow> {
  return recordQuery(
    type,
    userId,
    sql`version > cast(${afterVersion.toString()} as bigint) and version <= cast(${upToVersion.toString()} as bigint)`,
    sql`order by version limit ${limit}::integer`,
  );
}

/**
 * The user's highest row version over the four record tables (tombstones included), as text;
 * each branch is one backward step of the (user_id, version) index. Each branch names a lower
 * bound of the version (versions start at 1) and asks ORDER BY … LIMIT 1, not max(): a generic
 * plan made while a table looked empty computed max() by reading all the user's rows through the
 * (user_id, uid) index (at 100,000 rows of the user; flat-batches.pg.test.ts now checks this
 * query); a version condition makes the version index the one that both filters and orders.
 */
export function newestVersionQuery(userId: number): RawBuilder<{ v: string | null }> {
  const branches = RECORD_TYPES.map((type) => sql`(select version from ${sql.table(type)} where user_id = ${userId} and version > 0 order by version desc limit 1)`);
  return sql<{ v: string | null }>`select cast(greatest(${sql.join(branches)}) as text) as v`;
}

const STAMPS = [
  ['id', 'bigint'],
  ['user_id', 'integer'],
  ['uid', 'text'],
  ['version', 'bigint'],
  ['created_at', 'timestamptz'],
  ['updated_at', 'timestamptz'],
  ['deleted', 'timestamptz'],
] as const;

/** A timestamptz expression as `Date#toISOString()` text, in UTC, milliseconds (NULL stays NULL). */
const isoText = (expression: string): string => `to_char(${expression} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * One record of each type as a JSON object keyed by its columns, which `recordFromSql` reads as it
 * reads a row: instants as `Date#toISOString()` text, bigints as text (exact). The object reads,
 * the listing's calendars and the push prefetch answer one such column per record instead of
 * every type's columns side by side: node-pg's work per answer and per row grows with the columns,
 * not with the JSON. Made once per type (the reads compose their statements per call).
 */
const RECORD_JSON = perRecordType((type) => {
  const columns: (readonly [string, string])[] = [...STAMPS, ...FIELD_TABLES[type].map((f) => [f.column, SQL_TYPE_OF_KIND[f.kind]] as const)];
  const value = (column: string, sqlType: string): string =>
    sqlType === 'bigint' ? `cast(${ident(column)} as text)` : sqlType === 'timestamptz' ? isoText(ident(column)) : ident(column);
  return `json_build_object(${columns.map(([column, sqlType]) => `'${column}', ${value(column, sqlType)}`).join(', ')})`;
});

/** Counts of a reservation, in the order of `reserveQuery`'s branches: versions, each record type's row ids, conflict ids. */
export type ReserveCounts = readonly number[];

/** A reservation of nothing. */
export const NO_RESERVATION: ReserveCounts = Array.from({ length: RECORD_TYPES.length + 2 }, () => 0);

/** The keys of `reserveQuery`'s branches, in order: versions, each record type's row ids, conflict ids. */
const RESERVE_KEYS = ['v', ...RECORD_TYPES, 'c'] as const;

/** The `res_k` of the push prefetch's row that carries the user's notification settings (no reservation key is this). */
export const SETTINGS_ROW = 's';

/** A key of a reservation: 'v' (versions), a record type (its row ids) or 'c' (conflict ids). */
type ReserveKey = (typeof RESERVE_KEYS)[number];

/** The table whose identity sequence each id key draws from. */
export const ID_TABLES: Readonly<Record<Exclude<ReserveKey, 'v'>, string>> = { ...perRecordType((type): string => type), c: 'sync_conflicts' };

/**
 * The sequence each reservation key draws from: the version sequence, and each `ID_TABLES` table's
 * identity sequence under the name PostgreSQL gave it (`<table>_id_seq`;
 * schema-matches-field-tables.pg.test.ts holds the names against `pg_get_serial_sequence`). Named
 * as a literal, a sequence is resolved once, when the statement is prepared: looked up by
 * `nextval(pg_get_serial_sequence(…))`, it was found again for every value drawn (about 3.7 µs each
 * against 0.4, some 3 ms of PostgreSQL's time in a 1,000-event push).
 */
export const RESERVE_SEQUENCES: Readonly<Record<ReserveKey, string>> = {
  v: 'record_version_seq',
  ...perRecordType((type) => `${ID_TABLES[type]}_id_seq`),
  c: `${ID_TABLES.c}_id_seq`,
};

/** `reserveQuery`'s text: a branch per key of `keys` (all six unless told), their counts in parameters `$from` on, in order. */
function reserveText(from: number, keys: readonly ReserveKey[] = RESERVE_KEYS): string {
  return keys.map((key, i) => `select '${key}' as k, nextval('${RESERVE_SEQUENCES[key]}') as n from generate_series(1, cast($${from + i} as integer))`).join(
    '\nunion all ',
  );
}

const RESERVE_TEXT = reserveText(1);

/**
 * The reservation statement: n versions from the global sequence and n ids from each record
 * table's and the conflict table's identity sequence, each count a parameter (one fixed text, so
 * one prepared statement). `k` names the sequence: 'v', a record type, or 'c'; `n` is the value.
 */
export function reserveQuery(counts: ReserveCounts): Statement<{ k: string; n: string }> {
  return fixedStatement(RESERVE_TEXT, counts);
}

/**
 * A text of `lockRowsAndReceiptsQuery` for one shape: the record types with wanted uids (`types`)
 * and the reservation keys with a count above 0 (`reserving`). Parameters: $1 the user, then each
 * of those types' wanted uids (sorted), the receipt keys (`receiptKeyArrays`), those keys' counts.
 * Per type, one index probe per wanted uid: the LIMIT 1 subquery (the (user_id, uid) key is
 * unique, so it changes no answer) cannot be flattened into a join, so even a generic plan, which
 * estimates a user's rows from the table's average, cannot walk all of a user's rows instead. Uids
 * are locked in sorted order (a fixed order; the answer is ordered by id below).
 */
function prefetchText(types: readonly RecordType[], reserving: readonly ReserveKey[], withSettings: boolean): string {
  const receiptsFrom = 2 + types.length;
  const ctes = types.map(
    (type, i) => `${ident(`w_${type}`)} as (select x.* from unnest(cast($${2 + i} as text[])) as w(uid)
      cross join lateral (select * from ${ident(type)} where user_id = $1 and uid = w.uid limit 1 for update) as x
      order by x.id)`,
  );
  const notReceipt = `cast(null as text) as r_entity, cast(null as text) as r_uid, cast(null as text) as r_fingerprint, cast(null as jsonb) as r_result`;
  const notReserved = `cast(null as text) as res_k, cast(null as text[]) as res_n`;
  const branches = types.map((type) => `select cast('${type}' as text) as t, ${notReceipt}, ${notReserved}, ${RECORD_JSON[type]} as rec from ${ident(`w_${type}`)}`);
  branches.push(`select cast(null as text) as t, r.entity_type as r_entity, r.uid as r_uid, encode(r.fingerprint, 'hex') as r_fingerprint, r.result as r_result,
      ${notReserved}, cast(null as json) as rec
    ${matchingReceiptsText(1, receiptsFrom)}`);
  // One row per sequence, its values as an array: a batch of 1,000 items draws 2,001 values, and
  // as rows of this wide shape they cost more to read than the statement saves.
  if (reserving.length > 0) {
    branches.push(`select cast(null as text) as t, ${notReceipt}, d.k as res_k, d.ns as res_n, cast(null as json) as rec
    from (select q.k, array_agg(cast(q.n as text) order by q.n) as ns from (${reserveText(receiptsFrom + 3, reserving)}) as q group by q.k) as d`);
  }
  // The user's notification settings: one primary-key probe, as a row with `res_k` = SETTINGS_ROW and the settings in `rec`.
  if (withSettings) {
    branches.push(`select cast(null as text) as t, ${notReceipt}, cast('${SETTINGS_ROW}' as text) as res_k, cast(null as text[]) as res_n, cast(u.notification_settings as json) as rec
    from users as u where u.id = $1`);
  }
  return `${ctes.length > 0 ? `with ${ctes.join(', ')} ` : ''}${branches.join(' union all ')}`;
}

/** The prefetch texts made so far, by shape (`lockRowsAndReceiptsQuery`). */
const prefetchTexts = new Map<number, string>();

/**
 * The push prefetch in one statement: per type the rows with the wanted uids, locked (FOR UPDATE,
 * one (user_id, uid) index probe per uid), in id order, as rows with `t` = the type and the record
 * in `rec` (`RECORD_JSON`); then the receipts matching the
 * keys as rows with `t` = null and `r_entity`, `r_uid`, `r_fingerprint`, `r_result` set; then the
 * values drawn ahead by `reserveQuery(ahead)`, one row per sequence with `res_k` its key and
 * `res_n` its values (none when every count is 0); then, with `withSettings`, the user's
 * notification settings as a row with `res_k` = `SETTINGS_ROW` and the stored JSON in `rec` (no row when the
 * user has none). The text holds only the types with wanted uids
 * and the sequences with a count: each branch left out is executor work a push does not pay for
 * (a one-event push's prefetch took about 210 µs of PostgreSQL's CPU with every type's branch and
 * 155 µs with the events' alone). One text per shape, made once, so each is prepared once per
 * connection and never compiled per push; a push meets a handful of shapes.
 */
export function lockRowsAndReceiptsQuery(
  userId: number,
  wanted: Readonly<Record<RecordType, readonly string[]>>,
  keys: readonly ReceiptKey[],
  ahead: ReserveCounts = NO_RESERVATION,
  withSettings = false,
): Statement<SqlRecordRow> {
  // The shape: a bit per record type with wanted uids, then a bit per reservation key with a count, then one for the settings.
  let shape = withSettings ? 1 << (RECORD_TYPES.length + RESERVE_KEYS.length) : 0;
  const types: RecordType[] = [];
  const reserving: ReserveKey[] = [];
  const parameters: unknown[] = [userId];
  RECORD_TYPES.forEach((type, i) => {
    if (wanted[type].length === 0) return;
    shape |= 1 << i;
    types.push(type);
    parameters.push([...wanted[type]].sort());
  });
  parameters.push(...receiptKeyArrays(keys));
  RESERVE_KEYS.forEach((key, i) => {
    const count = ahead[i] ?? 0;
    if (!(count > 0)) return;
    shape |= 1 << (RECORD_TYPES.length + i);
    reserving.push(key);
    parameters.push(count);
  });
  let text = prefetchTexts.get(shape);
  if (text === undefined) prefetchTexts.set(shape, (text = prefetchText(types, reserving, withSettings)));
  return fixedStatement(text, parameters);
}

/**
 * The select list of one record of `type` as its wire JSON (a `lateral` row for `row_to_json`),
 * `r` being the table's row: `toWireRecord`'s shape (domain records/snapshot.ts) built in SQL,
 * key for key in its order: each field under its wire name, then id, uid, version as text,
 * deleted, createdAt, updatedAt, instants as `Date#toISOString()` text. `row_to_json` writes JSON
 * as `JSON.stringify` does (no spaces, the same escapes), so the text is the one
 * `encodeWireRecord` makes of the row; the store contract suite checks it for every record type.
 */
function wireRecordColumnsText(type: RecordType): string {
  const column = (name: string, sqlType: string): string => (sqlType === 'timestamptz' ? isoText(`r.${ident(name)}`) : `r.${ident(name)}`);
  return [
    ...FIELD_TABLES[type].map((f) => `${column(f.column, SQL_TYPE_OF_KIND[f.kind])} as ${ident(f.name)}`),
    `r."id" as "id"`,
    `r."uid" as "uid"`,
    `cast(r."version" as text) as "version"`,
    `${column('deleted', 'timestamptz')} as "deleted"`,
    `${column('created_at', 'timestamptz')} as "createdAt"`,
    `${column('updated_at', 'timestamptz')} as "updatedAt"`,
  ].join(', ');
}

/** The text of `readAllChangesQuery`, made once: $1 the user, $2 … $5 each type's watermark, $6 the limit. */
const ALL_CHANGES_TEXT = (() => {
  const bound = `select cast(null as text) as t, b.v as bound, (select coalesce(max(purged_through), 0) from sync_purge_horizons where user_id = $1) as purged,
    (select max(id) from sync_conflicts where user_id = $1 and resolved_at is null) as conflict,
    cast(null as bigint) as version, cast(null as text) as wire from b`;
  // One row per record: the first limit + 1 rows after the watermark, each with its version and
  // its wire record as JSON text.
  const branch = (type: RecordType, i: number) => `(select cast('${type}' as text) as t, cast(null as bigint) as bound, cast(null as bigint) as purged,
    cast(null as bigint) as conflict, r.version, cast(row_to_json(w) as text) as wire
      from (select * from ${ident(type)} where user_id = $1 and version > cast($${2 + i} as bigint) and version <= (select v from b)
        order by version limit cast($6 as integer) + 1) as r
      cross join lateral (select ${wireRecordColumnsText(type)}) as w)`;
  return `with b as (select case when is_called then last_value else 0 end as v from record_version_seq)
    ${bound} union all ${RECORD_TYPES.map(branch).join(' union all ')}`;
})();

/**
 * The whole pull read in one statement: a first row (`t` = null) carrying the sequence's last
 * value as the bound, the user's purge horizon (`purged`, 0 when nothing was purged) and the
 * greatest id of the user's unresolved conflicts (`conflict`, null when none; one probe of the
 * unresolved-conflicts index), then for each type (`t` = its name) its first `limit` + 1 rows
 * after its watermark up to that bound, by version, through the (user_id, version) index: each
 * row its `version` and its wire record as JSON text (`wire`, see `wireRecordColumnsText`), so
 * nothing parses and re-encodes a record on its way to the HTTP answer. One row per record and
 * not one aggregated text per type: PostgreSQL copies an aggregated text of a 1,000-record page
 * (half a megabyte) several times into freshly mapped memory, which cost more than the page's
 * whole read (bench/PERFORMANCE.md). One fixed text, prepared once.
 */
export function readAllChangesQuery(userId: number, after: Readonly<Record<RecordType, bigint>>, limit: number): Statement<SqlRecordRow> {
  return fixedStatement(ALL_CHANGES_TEXT, [userId, ...RECORD_TYPES.map((type) => after[type].toString()), limit]);
}

/**
 * `readObjects` in one statement (one snapshot): the live calendars, then the scope's roots (all,
 * or those with the uids `rootUids`), the overrides of those events and the reminders of both,
 * tombstones included, as rows with `t` = their type (an event row with a recurring event uid is
 * an override). Two fixed texts per scope (all roots, or some), each prepared once.
 */
export function readObjectsQuery(userId: number, scope: ObjectScope, rootUids?: readonly string[]): RawBuilder<SqlRecordRow> {
  const filter = (column: RawBuilder<unknown>) => (rootUids === undefined ? sql`` : sql`and ${column} = any(cast(${[...rootUids]} as text[]))`);
  return objectsStatement(userId, scope, filter(sql`uid`), null, filter(sql`x.uid`));
}

/** The `t` of a departure's row in the object reads (`rec` holds its `uid`, version `v` as text and the root's extras `x`). */
export const DEPARTED = 'departed';

/** A departure as the object reads' `rec` holds it. */
export function departureFromSql(rec: Readonly<Record<string, unknown>>): Departure {
  return { uid: String(rec.uid), version: BigInt(String(rec.v)), icalExtras: typeof rec.x === 'string' ? rec.x : null };
}

/**
 * The departures from a calendar's scope (none for other scopes) as rows (`t` = DEPARTED, and `n`
 * null when `withN`), filtered by `filter` on `x` (`departuresOf`).
 */
function departuresBranch(userId: number, scope: ObjectScope, filter: RawBuilder<unknown>, withN: boolean): RawBuilder<unknown> {
  if (!('calendarUid' in scope)) return sql``;
  return sql` union all select cast(${DEPARTED} as text) as t, json_build_object('uid', x.uid, 'v', cast(x.version as text), 'x', e.ical_extras) as rec${withN ? sql`, cast(null as text) as n` : sql``}
    ${departuresOf(userId, scope.calendarUid)} ${filter}`;
}

/** `from` and `where` of the departures from a calendar (`x`), with the root's current row (`e`, for its extras) by one (user_id, uid) probe. */
function departuresOf(userId: number, calendarUid: string): RawBuilder<unknown> {
  return sql`from event_departures x left join lateral (select e.ical_extras from events e where e.user_id = ${userId} and e.uid = x.uid limit 1) as e on true
    where x.user_id = ${userId} and x.calendar_uid = ${calendarUid}`;
}

/**
 * `readObjectsChangedSince` in one statement: first a row with `t` = null, the user's newest
 * version in `n` and purge horizon in `rec.p`, then what `readObjectsQuery` answers for the roots of which the root, an
 * override or a reminder has a version above `since`. The changed rows are found through each
 * table's (user_id, version) index; a changed reminder or override leads to its root by uid.
 */
export function readObjectsChangedSinceQuery(userId: number, scope: ObjectScope, since: bigint): RawBuilder<SqlRecordRow> {
  const after = sql`cast(${since.toString()} as bigint)`;
  const changedRoots =
    'tasks' in scope
      ? sql`select uid from tasks where user_id = ${userId} and version > ${after}
          union all select task_uid from reminders where user_id = ${userId} and version > ${after} and task_uid is not null`
      : sql`select coalesce(recurring_event_uid, uid) from events where user_id = ${userId} and version > ${after}
          union all select e.root from reminders x
            cross join lateral (select coalesce(e.recurring_event_uid, e.uid) as root from events e where e.user_id = ${userId} and e.uid = x.event_uid limit 1) as e
            where x.user_id = ${userId} and x.version > ${after} and x.event_uid is not null`;
  return objectsStatement(userId, scope, sql`and uid = any(array(${changedRoots}))`, newestVersionQuery(userId), sql`and x.version > ${after}`);
}

/** The condition on an event root's calendar of an events scope (none for every calendar). */
function inCalendar(scope: Exclude<ObjectScope, { tasks: true }>): RawBuilder<unknown> {
  return 'calendarUid' in scope ? sql`and calendar_uid = ${scope.calendarUid}` : sql``;
}

/**
 * The statement of both object reads: roots filtered by `rootsFilter`, and, when `newest` is given,
 * its answer first (`t` null, `n`). Overrides and reminders are found by their owner uids among the
 * user's rows (their reference indexes hold live rows only); `exists (select 1 from r)` is a
 * one-time filter that skips those scans when no root matched (a PUT of a new object).
 */
function objectsStatement(
  userId: number,
  scope: ObjectScope,
  rootsFilter: RawBuilder<unknown>,
  newest: RawBuilder<unknown> | null,
  departuresFilter: RawBuilder<unknown>,
): RawBuilder<SqlRecordRow> {
  const n = newest === null ? sql`` : sql`, cast(null as text) as n`;
  const branch = (type: RecordType, from: RawBuilder<unknown>) => sql`select cast(${type} as text) as t, ${sql.raw(RECORD_JSON[type])} as rec${n} from ${from}`;
  const first =
    newest === null
      ? sql``
      : sql`select cast(null as text) as t, json_build_object('p', (select cast(coalesce(max(purged_through), 0) as text) from sync_purge_horizons where user_id = ${userId})) as rec,
          (${newest}) as n union all `;
  const calendars = branch('calendars', sql`calendars where user_id = ${userId} and deleted is null`);
  if ('tasks' in scope) {
    return sql<SqlRecordRow>`with r as (select * from tasks where user_id = ${userId} ${rootsFilter}),
      m as (select * from reminders where user_id = ${userId} and exists (select 1 from r) and task_uid = any(array(select uid from r)))
      ${first}${calendars} union all ${branch('tasks', sql`r`)} union all ${branch('reminders', sql`m`)}`;
  }
  return sql<SqlRecordRow>`with r as (select * from events where user_id = ${userId} ${inCalendar(scope)} and recurring_event_uid is null ${rootsFilter}),
    o as (select * from events where user_id = ${userId} and exists (select 1 from r) and recurring_event_uid = any(array(select uid from r))),
    m as (select * from reminders where user_id = ${userId} and exists (select 1 from r) and event_uid = any(array(select uid from r union all select uid from o)))
    ${first}${calendars} union all ${branch('events', sql`r`)} union all ${branch('events', sql`o`)} union all ${branch('reminders', sql`m`)}${departuresBranch(userId, scope, departuresFilter, newest !== null)}`;
}

/**
 * `readObjectListing` in one statement (one snapshot): the live calendars as rows with `t` =
 * 'calendars' and the record in `rec` (`RECORD_JSON`), then per root of the scope a row with
 * `t` null: its `id`, `uid`, `del` (a tombstone), `v` the highest version of the root, its
 * overrides and the reminders of both (as text), and `x` its extras when they contain
 * `extrasHolding`. Roots, overrides and reminders are found as `readObjectsQuery` finds them; only
 * uids and versions are read of the overrides and reminders.
 */
export function readObjectListingQuery(userId: number, scope: ObjectScope, extrasHolding: string): RawBuilder<Record<string, unknown>> {
  const calendars = sql`select cast('calendars' as text) as t, ${sql.raw(RECORD_JSON.calendars)} as rec, id,
      cast(null as text) as uid, cast(null as boolean) as del, cast(null as text) as v, cast(null as text) as x
    from calendars where user_id = ${userId} and deleted is null`;
  const listed = sql`select cast(null as text) as t, cast(null as json) as rec, r.id, r.uid, r.deleted is not null as del,
      cast(greatest(r.version, v.v) as text) as v, case when strpos(r.ical_extras, ${extrasHolding}) > 0 then r.ical_extras end as x
    from r left join v on v.root = r.uid`;
  if ('tasks' in scope) {
    return sql<Record<string, unknown>>`with r as (select id, uid, deleted, version, ical_extras from tasks where user_id = ${userId}),
      v as (select task_uid as root, max(version) as v from reminders
        where user_id = ${userId} and exists (select 1 from r) and task_uid = any(array(select uid from r)) group by task_uid)
      ${calendars} union all ${listed}`;
  }
  return sql<Record<string, unknown>>`with r as (select id, uid, deleted, version, ical_extras from events
        where user_id = ${userId} ${inCalendar(scope)} and recurring_event_uid is null),
    o as (select uid, recurring_event_uid as root, version from events
      where user_id = ${userId} and exists (select 1 from r) and recurring_event_uid = any(array(select uid from r))),
    m as (select coalesce(o.root, x.event_uid) as root, x.version from reminders x left join o on o.uid = x.event_uid
      where x.user_id = ${userId} and exists (select 1 from r) and x.event_uid = any(array(select uid from r union all select uid from o))),
    v as (select root, max(version) as v from (select root, version from o union all select root, version from m) as a group by root)
    ${calendars} union all ${listed}${departedListing(userId, scope, extrasHolding)}`;
}

/** The departures of a calendar's scope (none for other scopes) as rows of `readObjectListingQuery`: `t` = DEPARTED, `uid`, `v`, `x`. */
function departedListing(userId: number, scope: ObjectScope, extrasHolding: string): RawBuilder<unknown> {
  if (!('calendarUid' in scope)) return sql``;
  return sql` union all select cast(${DEPARTED} as text), cast(null as json), cast(null as bigint), x.uid, true, cast(x.version as text),
      case when strpos(e.ical_extras, ${extrasHolding}) > 0 then e.ical_extras end
    ${departuresOf(userId, scope.calendarUid)}`;
}

/**
 * `readCollectionVersions` in one statement: rows (`c`, `v`) of each live calendar's uid with its highest
 * version over its roots, their overrides and the reminders of both, and `c` null for the tasks
 * and their reminders. Each override and reminder finds its root by a (user_id, uid) probe (a
 * LATERAL … LIMIT 1 subquery, which the planner cannot turn into a join that walks all of the user's
 * events once per root, as it did with a plain join while the table's statistics were stale);
 * only uids and versions are read.
 */
export function collectionVersionsQuery(userId: number): RawBuilder<{ c: string | null; v: string }> {
  return sql<{ c: string | null; v: string }>`select c, cast(max(v) as text) as v from (
      select r.calendar_uid as c, r.version as v from events r where r.user_id = ${userId} and r.recurring_event_uid is null
      union all
      select r.c, o.version from events o
        cross join lateral (${rootCalendarOf(userId, sql`o.recurring_event_uid`)}) as r
        where o.user_id = ${userId} and o.recurring_event_uid is not null
      union all
      select r.c, m.version from reminders m
        cross join lateral (select coalesce(e.recurring_event_uid, e.uid) as root from events e where e.user_id = ${userId} and e.uid = m.event_uid limit 1) as e
        cross join lateral (${rootCalendarOf(userId, sql`e.root`)}) as r
        where m.user_id = ${userId} and m.event_uid is not null
      union all
      select cast(null as text), t.version from tasks t where t.user_id = ${userId}
      union all
      select cast(null as text), m.version from reminders m
        cross join lateral (select 1 from tasks t where t.user_id = ${userId} and t.uid = m.task_uid limit 1) as t
        where m.user_id = ${userId} and m.task_uid is not null
      union all
      select d.calendar_uid, d.version from event_departures d where d.user_id = ${userId}
    ) as x
    where c is null or exists (select 1 from calendars k where k.user_id = ${userId} and k.uid = x.c and k.deleted is null)
    group by c`;
}

/** The calendar (`c`) of the root event `uid`, by one (user_id, uid) probe: no row when it is no root. */
function rootCalendarOf(userId: number, uid: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`select r.calendar_uid as c from events r where r.user_id = ${userId} and r.uid = ${uid} and r.recurring_event_uid is null limit 1`;
}
