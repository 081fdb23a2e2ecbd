import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryStore, type OutboxItem } from './index.js';
import { clientOf, FaultyFetch, signIn, startInMemoryService, twoDevicesWithTask, type InMemoryService } from '../test-support/index.js';

const times = { startTime: '2030-01-07T09:00:00.000Z', endTime: '2030-01-07T10:00:00.000Z' };
let service: InMemoryService;
beforeEach(async () => {
  service = await startInMemoryService();
});
afterEach(async () => {
  await service.close();
});

const seeded = (over: Partial<OutboxItem>): OutboxItem => ({
  seq: 1, type: 'tasks', uid: 't', op: 'upsert', patch: { title: 'T' }, baseVersion: null, state: 'pending', attempts: 0, sent: null, waitForPull: false, lastError: null, ...over,
});

describe('outbox lifecycle', () => {
  it('retries a retryable per-item error once per round (after the pull), parks it after 5 attempts, and retries it on demand', async () => {
    const a = await clientOf(service);
    await signIn(service, a, '+15550001001');
    const ev = await a.events.put({ calendarUid: 'not-yet', title: 'E', ...times });
    for (let i = 1; i <= 4; i++) {
      await a.sync();
      expect(a.status).toMatchObject({ pending: 1, failed: 0 });
    }
    await a.sync();
    expect(a.status).toMatchObject({ pending: 0, failed: 1 });
    expect(a.outbox.failed()).toEqual([{ type: 'events', uid: ev, op: 'upsert', attempts: 5, error: { code: 'UNKNOWN_REFERENCE', message: 'unknown calendarUid', retryable: true } }]);
    await a.sync(); // parked: not pushed again
    expect(a.outbox.failed()[0]?.attempts).toBe(5);

    await a.calendars.put({ uid: 'not-yet', name: 'Arrived' });
    await a.sync();
    await a.outbox.retry(ev);
    await a.sync();
    expect(a.status).toMatchObject({ pending: 0, failed: 0 });
    expect(a.events.get(ev)?.version).toMatch(/^[0-9]+$/);
  });

  it('a subtask made here under a task another device deleted meanwhile is parked as failed, saying what it was, not dropped', async () => {
    const { a, b, uid: parent } = await twoDevicesWithTask(service, '+15550001008', 'Move house');
    // B, not syncing (offline), adds a subtask with a reminder; A deletes the task meanwhile.
    const child = await b.tasks.put({ title: 'Book the van', parentTaskUid: parent });
    const reminder = await b.reminders.put({ taskUid: child, remindAt: '2030-01-07T09:00:00.000Z' });
    await a.tasks.remove(parent);
    await a.sync();
    await b.sync();
    await b.sync();
    expect(b.status).toMatchObject({ pending: 0, failed: 2 });
    const failed = b.outbox.failed();
    expect(failed.map((f) => [f.type, f.uid])).toEqual([['tasks', child], ['reminders', reminder]]);
    expect(failed[0]?.error).toEqual({ code: 'UNKNOWN_REFERENCE', retryable: false, message: 'the task "Book the van" was made here while its parent task was deleted on another device, so the server cannot take it; it is kept on this device only' });
    // Gone from the view with its parent, and never on the server.
    expect(b.tasks.list()).toEqual([]);
    expect(service.syncStore.snapshotRows(a.auth.user()!.id, 'tasks').find((r) => r.uid === child)).toBeUndefined();
  });

  it('parks a non-retryable per-item error at once (an item an older client left in the store)', async () => {
    const store = new MemoryStore();
    const a = await clientOf(service, { store });
    await signIn(service, a, '+15550001002');
    const cal = a.calendars.list()[0]!.uid;
    await a.close();
    await store.write({
      putRecords: [{ type: 'events', uid: 'bad', fields: { calendarUid: cal, title: 'x', startTime: times.startTime, endTime: times.endTime }, version: null }],
      putOutbox: [seeded({ seq: 100, type: 'events', uid: 'bad', patch: { calendarUid: cal, title: 'x', ...times, rrule: 'FREQ=NEVER' } })],
    });
    const again = await clientOf(service, { store });
    await again.sync();
    expect(again.outbox.failed()).toEqual([{ type: 'events', uid: 'bad', op: 'upsert', attempts: 1, error: expect.objectContaining({ code: 'INVALID_RRULE', retryable: false }) }]);
  });

  it('start-up recovery: an item stuck in flight goes back to pending and is re-pushed unchanged; a parked one gets a fresh budget', async () => {
    const store = new MemoryStore();
    const a = await clientOf(service, { store });
    await signIn(service, a, '+15550001003');
    await a.close();
    await store.write({
      putRecords: [
        { type: 'tasks', uid: 'flying', fields: { title: 'in flight' }, version: null },
        { type: 'tasks', uid: 'parked', fields: { title: 'parked' }, version: null },
      ],
      putOutbox: [
        seeded({ seq: 10, uid: 'flying', patch: { title: 'in flight' }, state: 'inflight', sent: { op: 'upsert', baseVersion: null, fields: { title: 'in flight' } } }),
        seeded({ seq: 11, uid: 'parked', patch: { title: 'parked' }, state: 'failed', attempts: 5, lastError: { code: 'X', message: 'x', retryable: true } }),
      ],
    });
    const b = await clientOf(service, { store });
    const recovered = (await store.load()).outbox;
    expect(recovered.map((i) => [i.uid, i.state, i.attempts, i.sent !== null])).toEqual([['flying', 'pending', 0, true], ['parked', 'pending', 0, false]]);
    await b.sync();
    expect(b.status).toMatchObject({ pending: 0, failed: 0 });
    expect(b.tasks.list().map((t) => [t.uid, t.title])).toEqual([['flying', 'in flight'], ['parked', 'parked']]);
  });

  it('a crash between "pushed" and "result stored" neither loses nor duplicates: the reopened client re-pushes, the server answers from its receipt', async () => {
    const store = new MemoryStore();
    const faulty = new FaultyFetch(service.fetch);
    const a = await clientOf(service, { store, fetch: faulty.fetch });
    await signIn(service, a, '+15550001004');
    const t = await a.tasks.put({ title: 'written once' });
    faulty.next = ({ path }) => (path === '/api/sync/push' ? 'crash' : null);
    void a.sync();
    await faulty.crash;
    const userId = a.auth.user()!.id;
    const applied = service.syncStore.snapshotRows(userId, 'tasks');
    expect(applied.map((r) => r.uid)).toEqual([t]);
    expect((await store.load()).outbox.map((i) => i.state)).toEqual(['inflight']);

    const b = await clientOf(service, { store });
    await b.tasks.put({ uid: t, title: 'edited after the restart' });
    await b.sync();
    await b.sync();
    expect(b.status).toMatchObject({ pending: 0, failed: 0 });
    const rows = service.syncStore.snapshotRows(userId, 'tasks');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.fields.title).toBe('edited after the restart');
    expect(b.tasks.get(t)?.version).toBe(rows[0]!.version.toString());
    expect(await b.conflicts.list()).toEqual([]);
  });

  it('a re-push answered from its receipt after a pull brought a later version keeps the later version (no record left behind the server)', async () => {
    const store = new MemoryStore();
    const faulty = new FaultyFetch(service.fetch);
    const a = await clientOf(service, { store, fetch: faulty.fetch });
    await signIn(service, a, '+15550001006');
    const personal = a.calendars.list()[0]!.uid;
    const work = await a.calendars.put({ name: 'Work' });
    await a.sync();
    await a.calendars.put({ uid: personal, name: 'Renamed' });
    faulty.next = ({ path }) => (path === '/api/sync/push' ? 'crash' : null);
    void a.sync();
    await faulty.crash; // the rename is applied on the server, its answer never stored
    const userId = a.auth.user()!.id;

    // After the restart "Work" is made the default; that goes out first and the server demotes
    // "Personal" (a later version); the round pulls the demotion before the held-back rename is
    // pushed again, and the rename is answered from its receipt with its first, older version.
    const b = await clientOf(service, { store });
    await b.calendars.put({ uid: work, isDefault: true });
    await b.sync();
    await b.sync();
    expect(b.status).toMatchObject({ pending: 0, failed: 0 });
    const server = service.syncStore.snapshotRows(userId, 'calendars').find((r) => r.uid === personal)!;
    expect(server.fields).toMatchObject({ name: 'Renamed', isDefault: false });
    expect(b.calendars.get(personal)).toMatchObject({ name: 'Renamed', isDefault: false, version: server.version.toString() });
  });

  it('a calendar deleted after its demotion by this device\'s default change, before a pull could bring it, goes without a conflict', async () => {
    const faulty = new FaultyFetch(service.fetch);
    const a = await clientOf(service, { fetch: faulty.fetch });
    await signIn(service, a, '+15550001007');
    const personal = a.calendars.list()[0]!.uid;
    const work = await a.calendars.put({ name: 'Work' });
    await a.sync();
    await a.calendars.put({ uid: work, isDefault: true }); // the server demotes "Personal": a new version
    faulty.next = ({ path }) => (path === '/api/sync/changes' ? 'network' : null);
    await expect(a.sync()).rejects.toMatchObject({ kind: 'network' }); // pushed and answered; the pull fails
    faulty.next = () => null;
    await a.calendars.remove(personal); // decided on the demoted calendar, with the version from before
    await a.sync();
    const userId = a.auth.user()!.id;
    expect(service.syncStore.snapshotConflicts(userId)).toEqual([]);
    const live = service.syncStore.snapshotRows(userId, 'calendars').filter((r) => r.deleted === null);
    expect(live.map((r) => [r.uid, r.fields.isDefault])).toEqual([[work, true]]);
    expect(a.calendars.list().map((c) => [c.uid, c.isDefault, c.version])).toEqual([[work, true, live[0]!.version.toString()]]);
    expect(a.status).toMatchObject({ pending: 0, failed: 0 });
  });

  it('a calendar made the default before its create left is created, then promoted: not merged into the existing default', async () => {
    // Found in the web client: "Make default" clicked on a calendar made less than the debounce
    // before sent one create with isDefault true, which the server merged into "Personal".
    const a = await clientOf(service);
    const b = await clientOf(service);
    await signIn(service, a, '+15550001010');
    await signIn(service, b, '+15550001010');
    const personal = a.calendars.list()[0]!.uid;
    const family = await a.calendars.put({ name: 'Family' });
    await a.calendars.put({ uid: family, isDefault: true });
    await a.calendars.put({ uid: family, color: '#336699' }); // a later edit goes with the create
    expect(a.outbox.pending().map((i) => i.uid)).toEqual([family, family]);
    await a.sync();
    await b.sync();
    const userId = a.auth.user()!.id;
    const live = service.syncStore.snapshotRows(userId, 'calendars').filter((r) => r.deleted === null);
    const byUid = (uid: string) => live.find((r) => r.uid === uid)?.fields;
    expect(byUid(family)).toMatchObject({ name: 'Family', color: '#336699', isDefault: true });
    expect(byUid(personal)).toMatchObject({ name: 'Personal', isDefault: false });
    for (const device of [a, b]) expect(device.calendars.list().map((c) => [c.name, c.isDefault]).sort()).toEqual([['Family', true], ['Personal', false]]);
    expect(service.syncStore.snapshotConflicts(userId)).toEqual([]);
    expect(a.status).toMatchObject({ pending: 0, failed: 0 });
  });

  it('the promotion split off a create waits while the create is parked, and goes after its retry', async () => {
    const store = new MemoryStore();
    const a = await clientOf(service, { store });
    await signIn(service, a, '+15550001011');
    await a.close();
    // An item an older client left: a create the server refuses, then its promotion.
    await store.write({
      putRecords: [{ type: 'calendars', uid: 'fam', fields: { name: 'x'.repeat(300), isDefault: true }, version: null }],
      putOutbox: [
        seeded({ seq: 100, type: 'calendars', uid: 'fam', patch: { name: 'x'.repeat(300) } }),
        seeded({ seq: 101, type: 'calendars', uid: 'fam', patch: { isDefault: true } }),
      ],
    });
    const again = await clientOf(service, { store });
    await again.sync();
    await again.sync();
    const userId = again.auth.user()!.id;
    const live = () => service.syncStore.snapshotRows(userId, 'calendars').filter((r) => r.deleted === null).map((r) => [r.uid, r.fields.isDefault]);
    expect(again.outbox.failed()).toEqual([{ type: 'calendars', uid: 'fam', op: 'upsert', attempts: 1, error: expect.objectContaining({ code: 'INVALID_FIELD' }) }]);
    expect(live()).toHaveLength(1); // the promotion did not go alone as a create as the default
    expect(again.calendars.get('fam')).toBeDefined();
    await again.calendars.put({ uid: 'fam', name: 'Family' }); // the fix goes into the create
    await again.sync();
    expect(live()).toEqual(expect.arrayContaining([['fam', true], [expect.any(String), false]]));
    expect(again.calendars.get('fam')).toMatchObject({ name: 'Family', isDefault: true });
    expect(again.status).toMatchObject({ pending: 0, failed: 0 });
  });

  it('a new default made here after deleting the old one, the delete queued behind a frozen rename: the new default is not merged into the deleted one', async () => {
    // Found by the convergence property (seed 535824413): the delete waited behind the rename's
    // frozen push, so the promotion went first, the server merged it into the calendar being
    // deleted, and the new calendar's later edits ended as a conflict with this device's own delete.
    const faulty = new FaultyFetch(service.fetch);
    const a = await clientOf(service, { fetch: faulty.fetch });
    await signIn(service, a, '+15550001008');
    const personal = a.calendars.list()[0]!.uid;
    await a.calendars.put({ uid: personal, name: 'Renamed' });
    faulty.next = () => 'network';
    await expect(a.sync()).rejects.toMatchObject({ kind: 'network' }); // the rename's payload is frozen
    faulty.next = () => null;
    await a.calendars.remove(personal); // queued behind the frozen rename
    const mine = await a.calendars.put({ name: 'Mine' });
    await a.calendars.put({ uid: mine, isDefault: true });
    await a.sync();
    await a.calendars.put({ uid: mine, name: 'Mine!' });
    await a.sync();
    await a.sync();
    const userId = a.auth.user()!.id;
    expect(service.syncStore.snapshotConflicts(userId)).toEqual([]);
    const live = service.syncStore.snapshotRows(userId, 'calendars').filter((r) => r.deleted === null);
    expect(live.map((r) => [r.uid, r.fields.name, r.fields.isDefault])).toEqual([[mine, 'Mine!', true]]);
    expect(a.calendars.list().map((c) => [c.uid, c.name, c.isDefault, c.version])).toEqual([[mine, 'Mine!', true, live[0]!.version.toString()]]);
    expect(a.status).toMatchObject({ pending: 0, failed: 0 });
  });

  it('a frozen rename answered from its receipt after a pull brought another device\'s later rename: the device takes the server\'s fields, not its own under the server\'s version', async () => {
    // Found by the convergence property (seed 1075184141): the frozen rename was held back behind
    // this device's new default, the round's pull laid it over the other device's later rename,
    // and its receipt's older answer left the device's own name under the newer version for good.
    const faulty = new FaultyFetch(service.fetch);
    const a = await clientOf(service, { fetch: faulty.fetch });
    const b = await clientOf(service);
    await signIn(service, a, '+15550001009');
    await signIn(service, b, '+15550001009');
    const personal = a.calendars.list()[0]!.uid;
    await a.calendars.put({ uid: personal, name: 'Mine' });
    faulty.next = ({ path }) => (path === '/api/sync/push' ? 'drop-response' : null);
    await expect(a.sync()).rejects.toMatchObject({ kind: 'network' }); // applied; the answer is lost
    faulty.next = () => null;
    await b.calendars.put({ uid: personal, name: 'Theirs' });
    await b.sync(); // a stale edit: it wins, "Mine" is its conflict's loser
    await a.calendars.put({ name: 'New default', isDefault: true }); // merged into "Personal" by the server
    await a.sync();
    await a.sync();
    const userId = a.auth.user()!.id;
    const live = service.syncStore.snapshotRows(userId, 'calendars').filter((r) => r.deleted === null);
    expect(live.map((r) => [r.uid, r.fields.name])).toEqual([[personal, 'Theirs']]);
    expect(a.calendars.list().map((c) => [c.uid, c.name, c.isDefault, c.version])).toEqual([[personal, 'Theirs', true, live[0]!.version.toString()]]);
    expect(a.status).toMatchObject({ pending: 0, failed: 0 });
  });

  it('a calendar deleted here while a reminder edit below it is frozen: the delete waits for the edit\'s answer, no conflict with this device\'s own delete', async () => {
    // Found by the one-device convergence property (seed 1269022392): both went out in one push,
    // the server applied the calendar's delete first, and its cascade made the reminder edit a
    // conflict with the device's own delete.
    const faulty = new FaultyFetch(service.fetch);
    const a = await clientOf(service, { fetch: faulty.fetch });
    await signIn(service, a, '+15550001010');
    const work = await a.calendars.put({ name: 'Work' });
    const ev = await a.events.put({ calendarUid: work, title: 'E', ...times });
    const rem = await a.reminders.put({ eventUid: ev, minutesBefore: 10 });
    await a.sync();
    await a.reminders.put({ uid: rem, minutesBefore: 30 });
    faulty.next = ({ path }) => (path === '/api/sync/push' ? 'network' : null);
    await expect(a.sync()).rejects.toMatchObject({ kind: 'network' }); // the edit's payload is frozen
    faulty.next = () => null;
    await a.calendars.remove(work); // takes the event and the reminder with it here
    await a.sync();
    await a.sync();
    const userId = a.auth.user()!.id;
    expect(service.syncStore.snapshotConflicts(userId)).toEqual([]);
    for (const [type, uid] of [['calendars', work], ['events', ev], ['reminders', rem]] as const) {
      expect(service.syncStore.snapshotRows(userId, type).find((r) => r.uid === uid)?.deleted).not.toBeNull();
    }
    expect([a.calendars.get(work), a.events.get(ev), a.reminders.get(rem)]).toEqual([undefined, undefined, undefined]);
    expect(a.status).toMatchObject({ pending: 0, failed: 0 });
  });

  it('a subtask deleted here while its edit is frozen, then its parent deleted: the parent\'s delete waits for the edit\'s answer too, no conflict with this device\'s own delete', async () => {
    // Found by the one-device convergence property (FC_RUNS=10, seed 1308302913): the subtask was no
    // longer local when its parent was deleted, so the parent's delete did not see the frozen edit
    // below it; both went in one push, deletes first, and the parent's cascade met the edit.
    const faulty = new FaultyFetch(service.fetch);
    const a = await clientOf(service, { fetch: faulty.fetch });
    await signIn(service, a, '+15550001011');
    const parent = await a.tasks.put({ title: 'T' });
    const sub = await a.tasks.put({ title: 'S', parentTaskUid: parent });
    await a.sync();
    await a.tasks.put({ uid: sub, title: 'S edited' });
    faulty.next = ({ path }) => (path === '/api/sync/push' ? 'network' : null);
    await expect(a.sync()).rejects.toMatchObject({ kind: 'network' }); // the edit's payload is frozen
    faulty.next = () => null;
    await a.tasks.remove(sub); // queued behind its own frozen edit
    await a.tasks.remove(parent);
    await a.sync();
    await a.sync();
    const userId = a.auth.user()!.id;
    expect(service.syncStore.snapshotConflicts(userId)).toEqual([]);
    for (const uid of [parent, sub]) expect(service.syncStore.snapshotRows(userId, 'tasks').find((r) => r.uid === uid)?.deleted).not.toBeNull();
    expect([a.tasks.get(parent), a.tasks.get(sub)]).toEqual([undefined, undefined]);
    expect(a.status).toMatchObject({ pending: 0, failed: 0 });
  });

  it('a record whose parent\'s create is held back goes after it: it fails on the reference only in the push that merges its calendar', async () => {
    // Found by the one-device convergence property (FC_RUNS=10, seed 673936069): a calendar create
    // waited behind another new default (one promotion a push), while its event and the event's
    // reminder went out in every push, failed with UNKNOWN_REFERENCE each time and were parked.
    // A second new default is merged into the first (docs/protocol.md), and what names it in that
    // same push fails once on the reference (not charged an attempt) before following it.
    const errors: unknown[] = [];
    const spy = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      const res = await service.fetch(input, init);
      if (String(input).includes('/api/sync/push')) {
        const { data } = (await res.clone().json()) as { data: Record<string, { status: string; error?: unknown }[]> };
        for (const list of Object.values(data)) if (Array.isArray(list)) for (const r of list) if (r.status === 'error') errors.push(r.error);
      }
      return res;
    }) as typeof fetch;
    const a = await clientOf(service, { fetch: spy });
    await signIn(service, a, '+15550001012');
    await a.calendars.put({ name: 'First', isDefault: true });
    const second = await a.calendars.put({ name: 'Second', isDefault: true }); // held behind the first promotion
    const ev = await a.events.put({ calendarUid: second, title: 'E', ...times });
    const rem = await a.reminders.put({ eventUid: ev, minutesBefore: 10 });
    await a.sync();
    await a.sync();
    expect(errors).toMatchObject([{ code: 'UNKNOWN_REFERENCE' }, { code: 'UNKNOWN_REFERENCE' }]); // the event and its reminder, once each
    const userId = a.auth.user()!.id;
    expect(service.syncStore.snapshotRows(userId, 'events').find((r) => r.uid === ev)?.deleted).toBeNull();
    expect(service.syncStore.snapshotRows(userId, 'reminders').find((r) => r.uid === rem)?.deleted).toBeNull();
    expect(a.status).toMatchObject({ pending: 0, failed: 0 });
  });

  it('a new default merged into the server\'s before a crash, then the server\'s default deleted here and the new one renamed: the new one is made anew, no conflict with this device\'s own delete', async () => {
    // Found by the convergence property (seed 1158888347): the merge's answer was lost in a crash,
    // the re-push was answered from its receipt with the uid of "Personal", which this device had
    // deleted meanwhile; re-keyed to it, the rename met the tombstone of its own delete (a conflict
    // with itself) and the calendar the user kept was gone.
    const store = new MemoryStore();
    const faulty = new FaultyFetch(service.fetch);
    const a = await clientOf(service, { store, fetch: faulty.fetch });
    const other = await clientOf(service);
    await signIn(service, a, '+15550001011');
    await signIn(service, other, '+15550001011');
    const personal = a.calendars.list()[0]!.uid;
    const mine = await a.calendars.put({ name: 'Mine', isDefault: true });
    const ev = await a.events.put({ calendarUid: mine, title: 'E', ...times });
    faulty.next = ({ path }) => (path === '/api/sync/push' ? 'crash' : null);
    void a.sync();
    await faulty.crash; // merged into "Personal" on the server; the answer never stored
    const b = await clientOf(service, { store });
    await b.calendars.remove(personal); // to the user "Personal" is another calendar than "Mine"
    await b.calendars.put({ uid: mine, name: 'Mine!' });
    await b.calendars.put({ name: 'Other' });
    await b.sync();
    await b.sync();
    await other.sync();
    const userId = b.auth.user()!.id;
    expect(service.syncStore.snapshotConflicts(userId)).toEqual([]);
    const live = service.syncStore.snapshotRows(userId, 'calendars').filter((r) => r.deleted === null);
    const made = live.find((r) => r.fields.name === 'Mine!');
    expect(live.map((r) => [r.fields.name, r.fields.isDefault]).sort()).toEqual([['Mine!', true], ['Other', false]]);
    expect(made!.uid).not.toBe(personal);
    const events = service.syncStore.snapshotRows(userId, 'events').filter((r) => r.deleted === null);
    expect(events.map((r) => [r.uid, r.fields.calendarUid])).toEqual([[ev, made!.uid]]);
    for (const device of [b, other]) {
      expect(device.calendars.list().map((c) => [c.uid, c.name, c.isDefault, c.version]).sort()).toEqual(live.map((r) => [r.uid, r.fields.name, r.fields.isDefault, r.version.toString()]).sort());
      expect(device.events.list().map((e) => [e.uid, e.calendarUid])).toEqual([[ev, made!.uid]]);
      expect(device.status).toMatchObject({ pending: 0, failed: 0 });
    }
  });

  it('a rename of the default that never arrived, frozen, then another calendar made the default: the rename goes first, no conflict with this device\'s own default change', async () => {
    // Found by the one-device convergence property (FC_RUNS=5, seed 313705883): the frozen rename
    // was held back behind the promotion, the server demoted "Personal" first, and the rename,
    // re-pushed as frozen with the version from before the demotion, became a stale edit.
    const faulty = new FaultyFetch(service.fetch);
    const a = await clientOf(service, { fetch: faulty.fetch });
    await signIn(service, a, '+15550001012');
    const personal = a.calendars.list()[0]!.uid;
    const work = await a.calendars.put({ name: 'Work' });
    await a.sync();
    await a.calendars.put({ uid: personal, name: 'Renamed' });
    faulty.next = ({ path }) => (path === '/api/sync/push' ? 'network' : null);
    await expect(a.sync()).rejects.toMatchObject({ kind: 'network' }); // never arrived; the payload is frozen
    faulty.next = () => null;
    await a.calendars.put({ uid: work, isDefault: true });
    await a.sync();
    await a.sync();
    const userId = a.auth.user()!.id;
    expect(service.syncStore.snapshotConflicts(userId)).toEqual([]);
    const live = service.syncStore.snapshotRows(userId, 'calendars').filter((r) => r.deleted === null);
    expect(live.map((r) => [r.uid, r.fields.name, r.fields.isDefault]).sort()).toEqual([[personal, 'Renamed', false], [work, 'Work', true]].sort());
    expect(a.calendars.list().map((c) => [c.uid, c.name, c.isDefault, c.version]).sort()).toEqual(live.map((r) => [r.uid, r.fields.name, r.fields.isDefault, r.version.toString()]).sort());
    expect(a.status).toMatchObject({ pending: 0, failed: 0 });
  });

  it('a calendar deleted here while this device\'s default change is frozen (applied, answer lost in a crash): the delete waits for the answer and goes with the demoted version', async () => {
    // Found by the one-device convergence property (FC_RUNS=10, seed 499884983): the delete went
    // first with the version from before the demotion, a stale delete of the device's own making.
    const store = new MemoryStore();
    const faulty = new FaultyFetch(service.fetch);
    const a = await clientOf(service, { store, fetch: faulty.fetch });
    await signIn(service, a, '+15550001013');
    const personal = a.calendars.list()[0]!.uid;
    const work = await a.calendars.put({ name: 'Work' });
    await a.sync();
    await a.calendars.put({ uid: work, isDefault: true });
    faulty.next = ({ path }) => (path === '/api/sync/push' ? 'crash' : null);
    void a.sync();
    await faulty.crash; // "Personal" demoted on the server; the answer never stored
    const b = await clientOf(service, { store });
    await b.calendars.remove(personal);
    await b.sync();
    await b.sync();
    const userId = b.auth.user()!.id;
    expect(service.syncStore.snapshotConflicts(userId)).toEqual([]);
    const live = service.syncStore.snapshotRows(userId, 'calendars').filter((r) => r.deleted === null);
    expect(live.map((r) => [r.uid, r.fields.isDefault])).toEqual([[work, true]]);
    expect(b.calendars.list().map((c) => [c.uid, c.isDefault, c.version])).toEqual([[work, true, live[0]!.version.toString()]]);
    expect(b.status).toMatchObject({ pending: 0, failed: 0 });
  });

  it('a lost answer and a duplicated request: re-pushed unchanged, no conflict, no extra version', async () => {
    const faulty = new FaultyFetch(service.fetch);
    const a = await clientOf(service, { fetch: faulty.fetch });
    await signIn(service, a, '+15550001005');
    const t = await a.tasks.put({ title: 'v1' });
    await a.sync();
    await a.tasks.put({ uid: t, title: 'v2' });
    let faults: ('drop-response' | 'duplicate')[] = ['drop-response', 'duplicate'];
    faulty.next = ({ path }) => (path === '/api/sync/push' ? (faults.shift() ?? null) : null);
    await expect(a.sync()).rejects.toMatchObject({ kind: 'network' });
    expect(a.status).toMatchObject({ online: false, pending: 1 });
    await a.tasks.put({ uid: t, title: 'v3' }); // queued behind the frozen item
    await a.sync();
    await a.sync();
    faults = [];
    expect(a.status).toMatchObject({ online: true, pending: 0 });
    const rows = service.syncStore.snapshotRows(a.auth.user()!.id, 'tasks');
    expect(rows.map((r) => r.fields.title)).toEqual(['v3']);
    expect(a.tasks.get(t)).toMatchObject({ title: 'v3', version: rows[0]!.version.toString() });
    expect(await a.conflicts.list()).toEqual([]);
    expect(faulty.injected).toEqual({ 'drop-response': 1, duplicate: 1 });
  });

  it('a sync() that joins a round pushes what was written before it was called, even while that round was pulling', async () => {
    const store = new MemoryStore();
    let release: () => void = () => undefined;
    let pulled: () => void = () => undefined;
    let paused = false;
    const gate = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      if (paused && String(input).includes('/api/sync/changes')) {
        paused = false;
        pulled();
        await new Promise<void>((r) => (release = r));
      }
      return service.fetch(input, init);
    }) as typeof fetch;
    const a = await clientOf(service, { store, fetch: gate });
    await signIn(service, a, '+15550001007');
    paused = true;
    const pulling = new Promise<void>((r) => (pulled = r));
    const round = a.sync();
    await pulling;
    // Written while the round pulls: its pushes are over.
    const t = await a.tasks.put({ title: 'written during the pull' });
    const joined = a.sync();
    expect(joined).toBe(round);
    release();
    await joined;
    expect(a.status.pending).toBe(0);
    expect(service.syncStore.snapshotRows(a.auth.user()!.id, 'tasks').map((r) => [r.uid, r.fields.title])).toEqual([[t, 'written during the pull']]);
  });

  it('merges edits of one record into one pending item and keeps one item in flight per record', async () => {
    const store = new MemoryStore();
    let release: () => void = () => undefined;
    let paused = false;
    const gate = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      if (paused && String(input).includes('/api/sync/push')) await new Promise<void>((r) => (release = r));
      return service.fetch(input, init);
    }) as typeof fetch;
    const a = await clientOf(service, { store, fetch: gate });
    await signIn(service, a, '+15550001006');
    const t = await a.tasks.put({ title: 'one' });
    await a.tasks.put({ uid: t, title: 'two' });
    await a.tasks.put({ uid: t, notes: 'n' });
    expect((await store.load()).outbox.map((i) => i.patch)).toEqual([{ title: 'two', notes: 'n' }]);
    paused = true;
    const round = a.sync();
    await new Promise((r) => setTimeout(r, 20));
    await a.tasks.put({ uid: t, title: 'three' });
    await a.tasks.put({ uid: t, priority: 3 });
    const during = (await store.load()).outbox;
    expect(during.map((i) => [i.state, i.patch])).toEqual([['inflight', { title: 'two', notes: 'n' }], ['pending', { title: 'three', priority: 3 }]]);
    expect(a.sync()).toBe(round); // single flight: a second call joins the running round
    paused = false;
    release();
    await round;
    await a.sync();
    expect(a.status.pending).toBe(0);
    const [row] = service.syncStore.snapshotRows(a.auth.user()!.id, 'tasks');
    expect(row?.fields).toMatchObject({ title: 'three', notes: 'n', priority: 3 });
    expect(await a.conflicts.list()).toEqual([]);
  });
});
