import { createHash } from 'node:crypto';
import { countPerType, perRecordType, reservedIdTaker, type ChangeFeed, type FieldValues, type PushReceipt, type ReceiptKey, type RecordRow, type RecordType, type RowWrite, type SyncStore, type SyncUnitOfWork } from '@calsync/domain';

/** What the contract suite needs from one store under test. */
export interface StoreHarness {
  readonly store: SyncStore;
  /** The change feed the store announces on (`SyncUnitOfWork.announceChange`). */
  readonly feed: ChangeFeed;
  /** Creates a user and returns its id (records reference users in SQL stores). */
  createUser(): Promise<number>;
  close(): Promise<void>;
}

/** Opens a fresh, empty store. */
export type MakeStore = () => Promise<StoreHarness>;

/** Fixed instants, so round-trips compare exact strings. */
export const T1 = '2024-03-01T08:30:00.123Z';
/** A later fixed instant. */
export const T2 = '2024-03-02T09:45:10.500Z';

/** Fields of a record of each type using every field kind, references pointing at `refs`. */
/** A receipt fingerprint as the domain makes them (64 hex digits of a SHA-256), named by `label`. */
export function fp(label: string): string {
  return createHash('sha256').update(label).digest('hex');
}

export function sampleFields(type: RecordType, refs: { calendarUid?: string; eventUid?: string; taskUid?: string } = {}): FieldValues {
  switch (type) {
    case 'calendars':
      return { name: 'Work', color: '#12ab9F', timezone: 'Europe/Berlin', isDefault: false };
    case 'events':
      return {
        calendarUid: refs.calendarUid ?? 'cal-missing',
        title: 'Stand-up',
        description: null,
        location: 'Room 4',
        startTime: T1,
        endTime: T2,
        allDay: false,
        timezone: null,
        rrule: 'FREQ=WEEKLY;COUNT=4;BYDAY=MO,WE',
        exdate: '2024-03-04T08:30:00.000Z,2024-03-06T08:30:00.000Z',
        recurringEventUid: null,
        originalStartTime: null,
        // A link (not a reference): it may name a series that is gone, or never was.
        splitFromUid: 'earlier-part',
        splitFromStart: '2024-02-26T08:30:00.000Z',
        moves: '2024-02-19T09:00:00.000Z/2024-02-19T08:30:00.000Z',
        icalExtras: 'BEGIN:VEVENT\r\nCATEGORIES:Team\r\nX-EXAMPLE;PARAM=1:value\r\nEND:VEVENT',
      };
    case 'tasks':
      return {
        title: 'File taxes',
        notes: null,
        dueAt: T2,
        completed: false,
        completedAt: null,
        priority: 7,
        parentTaskUid: refs.taskUid ?? null,
        icalExtras: null,
      };
    case 'reminders':
      return { eventUid: refs.eventUid ?? null, taskUid: refs.taskUid ?? null, minutesBefore: 15, remindAt: null, icalExtras: null };
  }
}

/** A row not stored yet: everything but the id `reserve` draws for it. */
export type UnsavedRow = Omit<RecordRow, 'id'>;

/** A new row of `type` for `userId`, with version and stamps as given. */
export function newRow(type: RecordType, userId: number, uid: string, version: bigint, fields: FieldValues, deleted: string | null = null): UnsavedRow {
  return { type, userId, uid, version, createdAt: T1, updatedAt: T1, deleted, fields };
}

/** `count` new versions, drawn with `reserve`. */
export async function nextVersions(uow: SyncUnitOfWork, count: number): Promise<bigint[]> {
  return (await uow.reserve({ versions: count })).versions;
}

/** Insert writes of `rows`, each under an id drawn for its type with one `reserve` call, in order. */
export async function insertsOf(uow: SyncUnitOfWork, rows: readonly UnsavedRow[]): Promise<(RowWrite & { row: RecordRow })[]> {
  const { rowIds } = await uow.reserve({ rowIds: countPerType(rows) });
  const takeId = reservedIdTaker(rowIds);
  return rows.map((row) => ({ kind: 'insert' as const, row: { ...row, id: takeId(row.type) } }));
}

/** Inserts rows in one unit of work with fresh versions; returns them as stored (with ids). */
export async function insertRows(
  store: SyncStore,
  userId: number,
  rows: readonly { type: RecordType; uid: string; fields: FieldValues; deleted?: string | null }[],
): Promise<RecordRow[]> {
  return store.inUserTransaction(userId, async (uow) => {
    const versions = await nextVersions(uow, rows.length);
    const writes = await insertsOf(uow, rows.map((r, i) => newRow(r.type, userId, r.uid, versions[i]!, r.fields, r.deleted ?? null)));
    await uow.applyWrites(writes);
    return writes.map((w) => w.row);
  });
}

/** A calendar, an event in it, a task with a subtask, and a reminder on the event. */
export async function insertFamily(store: SyncStore, userId: number, prefix: string): Promise<RecordRow[]> {
  return insertRows(store, userId, [
    { type: 'calendars', uid: `${prefix}-cal`, fields: sampleFields('calendars') },
    { type: 'events', uid: `${prefix}-ev`, fields: sampleFields('events', { calendarUid: `${prefix}-cal` }) },
    { type: 'tasks', uid: `${prefix}-task`, fields: sampleFields('tasks') },
    { type: 'tasks', uid: `${prefix}-sub`, fields: sampleFields('tasks', { taskUid: `${prefix}-task` }) },
    { type: 'reminders', uid: `${prefix}-rem`, fields: sampleFields('reminders', { eventUid: `${prefix}-ev` }) },
  ]);
}

/** A promise with its resolve function, to hold a unit of work open. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Waits `ms` milliseconds (gives a blocked unit of work the chance to misbehave; never asserted as a timing). */
export function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** No uids of any type: the base for a prefetch that wants a few. */
export function noUids(): Record<RecordType, string[]> {
  return perRecordType(() => []);
}

/** The rows of one type with these uids, through the port's one prefetch (no receipts). */
export async function rowsOf(uow: SyncUnitOfWork, type: RecordType, uids: readonly string[]): Promise<RecordRow[]> {
  return (await uow.prefetch({ ...noUids(), [type]: uids }, [])).rows[type];
}

/** The receipts matching these keys, through the port's one prefetch (no rows). */
export async function receiptsOf(uow: SyncUnitOfWork, keys: readonly ReceiptKey[]): Promise<PushReceipt[]> {
  return (await uow.prefetch(noUids(), keys)).receipts;
}

/** The global sequence's last issued value, as the pull reads it (a change read of no rows). */
export async function boundOf(uow: SyncUnitOfWork): Promise<bigint> {
  return (await uow.readChangesSince(perRecordType(() => 0n), 0)).bound;
}
