import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalValidationError, MemoryStore } from './index.js';
import { startInMemoryService, type InMemoryService } from '../test-support/in-memory-service.js';
import { clientOf, signIn, twoDevicesWithTask } from '../test-support/clients.js';

const times = { startTime: '2030-01-07T09:00:00.000Z', endTime: '2030-01-07T10:00:00.000Z' };
let service: InMemoryService;
beforeEach(async () => {
  service = await startInMemoryService();
});
afterEach(async () => {
  await service.close();
});

describe('@calsync/client against the in-memory service', () => {
  it('signs in, bootstraps the default calendar by pull, pushes a write and another device pulls it', async () => {
    const a = await clientOf(service);
    await signIn(service, a, '+15550000001');
    const [personal] = a.calendars.list();
    expect(personal).toMatchObject({ name: 'Personal', isDefault: true });
    expect(personal?.version).toMatch(/^[0-9]+$/);
    expect(a.status).toMatchObject({ signedIn: true, pending: 0, failed: 0, lastError: null });

    const uid = await a.events.put({ calendarUid: personal!.uid, title: 'Standup', ...times, rrule: 'FREQ=WEEKLY;COUNT=4' });
    expect(a.events.get(uid)).toMatchObject({ title: 'Standup', version: null, allDay: false });
    expect(a.status.pending).toBe(1);
    await a.sync();
    expect(a.events.get(uid)?.version).toMatch(/^[0-9]+$/);
    expect(a.status.pending).toBe(0);

    const b = await clientOf(service);
    await signIn(service, b, '+15550000001');
    expect(b.events.get(uid)).toEqual(a.events.get(uid));
    expect(b.calendars.list()).toEqual(a.calendars.list());
  });

  it('refuses an invalid rrule, a missing title and end before start locally, before the outbox', async () => {
    const a = await clientOf(service);
    await signIn(service, a, '+15550000002');
    const cal = a.calendars.list()[0]!.uid;
    await expect(a.events.put({ calendarUid: cal, title: 'x', ...times, rrule: 'FREQ=FOO' })).rejects.toMatchObject({ code: 'INVALID_RRULE' });
    await expect(a.events.put({ calendarUid: cal, ...times })).rejects.toBeInstanceOf(LocalValidationError);
    await expect(a.events.put({ calendarUid: cal, title: 'x', startTime: times.endTime, endTime: times.startTime })).rejects.toMatchObject({ code: 'INVALID_FIELD' });
    await expect(a.events.put({ title: 'x', ...times })).rejects.toMatchObject({ code: 'CALENDAR_REQUIRED' });
    expect(a.status.pending).toBe(0);
    expect(a.events.list()).toEqual([]);
  });

  it('surfaces a conflict, lists it, restores it, and both devices converge on the restored version', async () => {
    const { a, b, uid: t } = await twoDevicesWithTask(service, '+15550000003', 'Plan');
    await a.tasks.put({ uid: t, title: 'by a' });
    await b.tasks.put({ uid: t, title: 'by b' });
    await a.sync();
    const seen: unknown[] = [];
    b.conflicts.subscribe((c) => seen.push(...c));
    await b.sync();
    expect(seen).toHaveLength(1);
    expect(b.status.pending).toBe(0);
    const [conflict] = await b.conflicts.list();
    expect(conflict).toMatchObject({ entityType: 'TASK', entityUid: t, loserSnapshot: { title: 'by a' } });
    await a.sync();
    expect(a.tasks.get(t)).toEqual(b.tasks.get(t));
    expect(a.tasks.get(t)?.title).toBe('by b');
    await b.conflicts.restore(conflict!.conflictId);
    await b.sync();
    await a.sync();
    expect(a.tasks.get(t)?.title).toBe('by a');
    expect(b.tasks.get(t)).toEqual(a.tasks.get(t));
    expect(await a.conflicts.list()).toEqual([]);
  });

  it("hears a conflict on every device within one round, with `mine` right on both; outbox listing and isPending", async () => {
    const a = await clientOf(service);
    const b = await clientOf(service);
    await signIn(service, a, '+15550000008');
    await signIn(service, b, '+15550000008');
    const t = await a.tasks.put({ title: 'Plan' });
    await a.sync();
    await b.sync();
    const heard: Record<'a' | 'b', unknown[]> = { a: [], b: [] };
    a.conflicts.subscribe((c) => heard.a.push(...c));
    b.conflicts.subscribe((c) => heard.b.push(...c));
    await a.tasks.put({ uid: t, title: 'by a' });
    expect(a.isPending('tasks', t)).toBe(true);
    expect(a.outbox.pending()).toEqual([{ type: 'tasks', uid: t, op: 'upsert', attempts: 0, error: null, state: 'pending' }]);
    await b.tasks.put({ uid: t, title: 'by b' });
    await a.sync();
    expect(a.isPending('tasks', t)).toBe(false);
    expect(a.outbox.pending()).toEqual([]);
    // B's stale edit is applied over A's: B's version stands, A's is the loser.
    await b.sync();
    expect(heard.b).toEqual([expect.objectContaining({ entityUid: t, mine: 'current', loserSnapshot: expect.objectContaining({ title: 'by a' }) })]);
    expect(heard.a).toEqual([]);
    await a.sync(); // one round of A
    expect(heard.a).toEqual([expect.objectContaining({ entityUid: t, mine: 'loser' })]);
    expect((await a.conflicts.list()).map((c) => c.mine)).toEqual(['loser']);
    expect((await b.conflicts.list()).map((c) => c.mine)).toEqual(['current']);
    // Heard once: later rounds list nothing new.
    await a.tasks.put({ uid: t, title: 'again' });
    await a.sync();
    await b.sync();
    expect([heard.a.length, heard.b.length]).toEqual([1, 1]);
    // A third device that never wrote the record sees neither side as its own.
    const c = await clientOf(service);
    await signIn(service, c, '+15550000008');
    expect((await c.conflicts.list()).map((x) => x.mine)).toEqual([null]);
  });

  it.each([
    ['waits for it and reports nothing', 1, 0],
    ['reports it when told not to wait', 0, 1],
  ] as const)("a conflict the other device settles just after its push, listed here before that: the listing %s", async (_, settleWaitMs, reported) => {
    // B's push makes a conflict that lost nothing (A renamed the task, B wrote its notes offline);
    // A's round runs between B's push and B's dismissal of it, and lists it while it is unresolved.
    const path = (input: Parameters<typeof fetch>[0]) => new URL(String(input)).pathname;
    let aListed!: () => void;
    let bDismissed!: () => void;
    const [firstListingOnA, dismissalByB] = [new Promise<void>((r) => (aListed = r)), new Promise<void>((r) => (bDismissed = r))];
    let listingsOnA = 0;
    let roundOnA: Promise<void> | undefined;
    const aFetch: typeof fetch = async (input, init) => {
      const listing = path(input) === '/api/sync/conflicts' && (init?.method ?? 'GET') === 'GET';
      if (listing && ++listingsOnA === 2) await dismissalByB;
      const answer = await service.fetch(input, init);
      if (listing && listingsOnA === 1) aListed();
      return answer;
    };
    const bFetch: typeof fetch = async (input, init) => {
      if (!path(input).endsWith('/resolve')) return service.fetch(input, init);
      roundOnA = a.sync();
      await firstListingOnA;
      const answer = await service.fetch(input, init);
      bDismissed();
      return answer;
    };
    const a = await clientOf(service, { fetch: aFetch, settleWaitMs });
    const b = await clientOf(service, { fetch: bFetch });
    await signIn(service, a, `+1555000003${settleWaitMs}`);
    await signIn(service, b, `+1555000003${settleWaitMs}`);
    const uid = await a.tasks.put({ title: 'Groceries' });
    await a.sync();
    await b.sync();
    const heard: unknown[] = [];
    a.conflicts.subscribe((c) => heard.push(...c));
    await a.tasks.put({ uid, title: 'Groceries for Sunday' });
    await a.sync();
    await b.tasks.put({ uid, notes: 'oat milk' });
    await b.sync();
    await roundOnA;
    await a.sync();
    expect({ heard: heard.length, listingsOnA, task: a.tasks.get(uid) }).toMatchObject({ heard: reported, listingsOnA: 2 - reported, task: { title: 'Groceries for Sunday', notes: 'oat milk' } });
    expect(await a.conflicts.list()).toEqual([]);
  });

  it('lists conflicts only when a pull reports an unresolved one newer than its mark, and never asks twice for one resolved before it listed', async () => {
    // Each device's conflict listings (GET /api/sync/conflicts), and a hook run before one is answered.
    const listings = { a: 0, b: 0 };
    let beforeListing: (() => Promise<void>) | null = null;
    const counting = (name: 'a' | 'b'): typeof fetch => async (input, init) => {
      if (new URL(String(input)).pathname === '/api/sync/conflicts' && (init?.method ?? 'GET') === 'GET') {
        listings[name] += 1;
        const hook = beforeListing;
        beforeListing = null;
        await hook?.();
      }
      return service.fetch(input, init);
    };
    const a = await clientOf(service, { fetch: counting('a') });
    const b = await clientOf(service, { fetch: counting('b') });
    await signIn(service, a, '+15550000009');
    await signIn(service, b, '+15550000009');
    // The other device's plain writes: pulled every round, never a listing.
    for (let i = 0; i < 3; i++) {
      await a.tasks.put({ title: `plain ${i}` });
      await a.sync();
      await b.sync();
    }
    expect(listings).toEqual({ a: 0, b: 0 });
    // A conflict B's push makes: B lists it (its push answered one), A lists it in its next round.
    const t = a.tasks.list()[0]!.uid;
    await a.tasks.put({ uid: t, title: 'by a' });
    await b.tasks.put({ uid: t, title: 'by b' });
    await a.sync();
    await b.sync();
    await a.sync();
    expect(listings).toEqual({ a: 1, b: 1 });
    expect((await a.conflicts.list()).map((c) => c.mine)).toEqual(['loser']);
    const seenOnA = listings.a;
    // A second conflict, dismissed on B after A's pull reported it and before A's listing is answered:
    // A's listing finds nothing, and later pulls report only what A listed already (unresolved ones).
    await a.tasks.put({ uid: t, title: 'by a again' });
    await b.tasks.put({ uid: t, title: 'by b again' });
    await a.sync();
    await b.sync();
    const second = (await b.conflicts.list()).at(-1)!;
    beforeListing = async () => void (await b.conflicts.dismiss(second.conflictId));
    const heard: unknown[] = [];
    a.conflicts.subscribe((c) => heard.push(...c));
    await a.sync();
    expect(listings.a).toBe(seenOnA + 1);
    expect(heard).toEqual([]);
    await a.sync();
    await a.tasks.put({ title: 'after' });
    await a.sync();
    expect(listings.a).toBe(seenOnA + 1);
  });

  it('against a server that reports no newest conflict id, lists conflicts after pulling records another device wrote', async () => {
    // An older server: pull pages without newestConflictId.
    const older: typeof fetch = async (input, init) => {
      const res = await service.fetch(input, init);
      if (new URL(String(input)).pathname !== '/api/sync/changes' || res.status !== 200) return res;
      const body = (await res.json()) as { data: Record<string, unknown> };
      delete body.data.newestConflictId;
      return new Response(JSON.stringify(body), { status: 200, headers: res.headers });
    };
    const { a, b, uid: t } = await twoDevicesWithTask(service, '+15550000010', 'Plan', { fetch: older });
    const heard: unknown[] = [];
    a.conflicts.subscribe((c) => heard.push(...c));
    await a.tasks.put({ uid: t, title: 'by a' });
    await b.tasks.put({ uid: t, title: 'by b' });
    await a.sync();
    await b.sync();
    await a.sync();
    expect(heard).toEqual([expect.objectContaining({ entityUid: t, mine: 'loser' })]);
  });

  it('sends only the changed fields: two devices editing different fields of one event offline both keep their edit', async () => {
    const a = await clientOf(service);
    const b = await clientOf(service);
    await signIn(service, a, '+15550000007');
    await signIn(service, b, '+15550000007');
    const cal = a.calendars.list()[0]!.uid;
    const ev = await a.events.put({ calendarUid: cal, title: 'Review', location: 'Room 1', ...times });
    await a.sync();
    await b.sync();
    // Each device saves the whole record, as a form does, with one field changed.
    const { uid: _ua, version: _va, ...onA } = a.events.get(ev)!;
    const { uid: _ub, version: _vb, ...onB } = b.events.get(ev)!;
    await a.events.put({ ...onA, uid: ev, location: 'Room 2' });
    await b.events.put({ ...onB, uid: ev, title: 'Design review' });
    // An unchanged save queues nothing.
    await b.events.put({ ...onB, uid: ev, title: 'Design review' });
    expect(b.status.pending).toBe(1);
    await a.sync();
    await b.sync();
    await a.sync();
    for (const device of [a, b]) expect(device.events.get(ev)).toMatchObject({ title: 'Design review', location: 'Room 2' });
    expect(a.events.get(ev)).toEqual(b.events.get(ev));
    const [row] = service.syncStore.snapshotRows(1, 'events');
    expect(row?.fields).toMatchObject({ title: 'Design review', location: 'Room 2' });
  });

  it('re-keys a local default calendar merged into the server one, in records, references and the outbox', async () => {
    const a = await clientOf(service);
    await signIn(service, a, '+15550000004');
    const server = a.calendars.list()[0]!.uid;
    const local = await a.calendars.put({ name: 'Mine', isDefault: true });
    const ev = await a.events.put({ calendarUid: local, title: 'E', ...times });
    await a.sync();
    expect(a.calendars.get(local)).toBeUndefined();
    expect(a.events.get(ev)?.calendarUid).toBe(server);
    await a.sync();
    expect(a.status).toMatchObject({ pending: 0, failed: 0 });
    expect(service.syncStore.snapshotRows(1, 'events').map((r) => r.fields.calendarUid)).toEqual([server]);
  });

  it('logout ends the session and leaves the store empty; the next sign-in is a new device unless the app names one', async () => {
    const store = new MemoryStore();
    const a = await clientOf(service, { store });
    await signIn(service, a, '+15550000005');
    const firstUid = (await store.load()).meta.deviceUid;
    expect(firstUid).toEqual(expect.any(String));
    const token = a.auth.accessToken()!;
    await a.tasks.put({ title: 'local only' });
    await a.auth.logout();
    expect(a.status.signedIn).toBe(false);
    expect(a.calendars.list()).toEqual([]);
    expect(a.tasks.list()).toEqual([]);
    expect(await store.load()).toEqual({ records: [], outbox: [], meta: {} });
    expect((await service.fetch('http://calsync.test/api/sync/changes', { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    // Reopening a signed-out store writes nothing either.
    await a.close();
    const again = await clientOf(service, { store });
    expect(await store.load()).toEqual({ records: [], outbox: [], meta: {} });
    await signIn(service, again, '+15550000005');
    expect((await store.load()).meta.deviceUid).not.toBe(firstUid);

    // An app that keeps its own uid (outside the store) signs in as the same device every time.
    const named = await clientOf(service, { device: { uid: 'kept-by-the-app', platform: 'test', name: 'named' } });
    await signIn(service, named, '+15550000006');
    await named.auth.logout();
    await signIn(service, named, '+15550000006');
    const res = await service.fetch('http://calsync.test/api/auth/devices', { headers: { authorization: `Bearer ${named.auth.accessToken()!}` } });
    const { data } = (await res.json()) as { data: { devices: { uid: string; current: boolean }[] } };
    expect(data.devices.map((d) => [d.uid, d.current])).toEqual([['kept-by-the-app', true]]);
  });
});
