import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorCodec, SyncService, type PushItem, type RecordType, type SyncApi } from '@calsync/domain';
import { itemByItem } from '@calsync/testkit';
import { insertsOf, nextVersions, rowsOf } from '@calsync/testkit/contracts';
import { PostgresSyncStore } from './postgres-sync-store.js';
import { announceDatabaseKinds, createTestUser, openTestDatabase, type TestDatabase, versionOf } from '../test-support/index.js';

// Races on a real PostgreSQL server with several pool connections. PGlite has one session and
// serializes everything, so these cases only run when TEST_DATABASE_URL is set.
const runs = announceDatabaseKinds('sync-concurrency.pg.test.ts').includes('postgres');
const T0 = '2024-06-01T09:00:00.000Z';
const T1 = '2024-06-01T10:00:00.000Z';
const systemClock = { now: () => new Date() };

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const up = (uid: string, fields: Record<string, unknown>, baseVersion: string | null): PushItem => ({ uid, op: 'upsert', baseVersion, fields });

describe.skipIf(!runs)('concurrency on PostgreSQL', () => {
  let database: TestDatabase;
  let store: PostgresSyncStore;
  const services = {} as Record<'whole' | 'item by item', SyncApi>;

  beforeAll(async () => {
    database = await openTestDatabase('postgres', { poolMax: 12 });
    store = new PostgresSyncStore(database.db);
    services.whole = new SyncService({ store, clock: systemClock, cursorCodec: new CursorCodec('concurrency-test-secret') });
    services['item by item'] = itemByItem(services.whole);
  });
  afterAll(async () => {
    await database?.close();
  });

  const createUser = () => createTestUser(database);

  it('parallel units of work of one user run one at a time and lose no read-modify-write', async () => {
    const user = await createUser();
    let active = 0;
    let maxActive = 0;
    const units = Array.from({ length: 16 }, () =>
      store.inUserTransaction(user, async (uow) => {
        // The lock travels with the unit's first read, so a unit counts as active once that read answered.
        const [row] = await rowsOf(uow, 'tasks', ['counter']);
        active += 1;
        maxActive = Math.max(maxActive, active);
        const [version] = await nextVersions(uow, 1);
        const count = row === undefined ? 1 : Number(row.fields.title) + 1;
        const fields = { title: String(count), notes: null, dueAt: null, completed: false, completedAt: null, priority: null, parentTaskUid: null };
        const next = { type: 'tasks' as const, userId: user, uid: 'counter', version: version!, createdAt: T0, updatedAt: T0, deleted: null, fields };
        await uow.applyWrites(row === undefined ? await insertsOf(uow, [next]) : [{ kind: 'update', row: { ...next, id: row.id } }]);
        active -= 1;
      }),
    );
    await Promise.all(units);
    expect(maxActive).toBe(1);
    const [final] = await store.inUserTransaction(user, (uow) => rowsOf(uow, 'tasks', ['counter']));
    expect(final!.fields.title).toBe('16');
  });

  it("one user's long unit of work does not block other users' units", async () => {
    const [slow, ...others] = await Promise.all(Array.from({ length: 6 }, () => createUser()));
    const entered = deferred();
    const release = deferred();
    let slowFinished = false;
    const long = store.inUserTransaction(slow!, async (uow) => {
      await nextVersions(uow, 1);
      entered.resolve();
      await release.promise;
      slowFinished = true;
    });
    await entered.promise;
    try {
      const done = await Promise.all(others.map((u) => store.inUserTransaction(u, async (uow) => (await nextVersions(uow, 2)).length)));
      expect(done).toEqual([2, 2, 2, 2, 2]);
      expect(slowFinished).toBe(false);
    } finally {
      release.resolve();
      await long;
    }
  });

  it("the conflict list and the newest version do not wait for the user's unit of work under way, and see nothing of it before it commits", async () => {
    const user = await createUser();
    const service = services.whole;
    const first = await service.push(user, { tasks: [up('lf-1', { title: 'first' }, null)] });
    const entered = deferred();
    const release = deferred();
    let unitFinished = false;
    const long = store.inUserTransaction(user, async (uow) => {
      const [v] = await nextVersions(uow, 1);
      await uow.applyWrites(await insertsOf(uow, [{ type: 'tasks', userId: user, uid: 'lf-2', version: v!, createdAt: T0, updatedAt: T0, deleted: null, fields: { title: 'second', notes: null, dueAt: null, completed: false, completedAt: null, priority: null, parentTaskUid: null } }]));
      // A read of the unit sends its write: the row is in the table, not yet committed.
      expect(await rowsOf(uow, 'tasks', ['lf-2'])).toHaveLength(1);
      entered.resolve();
      await release.promise;
      unitFinished = true;
      return v!;
    });
    await entered.promise;
    try {
      expect((await service.listConflicts(user, {})).conflicts).toEqual([]);
      expect(await service.newestVersion(user)).toBe(BigInt(versionOf(first.tasks[0]!)));
      expect(unitFinished).toBe(false);
    } finally {
      release.resolve();
    }
    const written = await long;
    expect(await service.newestVersion(user)).toBe(written);
  });

  it('sequence values never collide across parallel units of many users', async () => {
    const users = await Promise.all(Array.from({ length: 8 }, () => createUser()));
    const batches = await Promise.all(
      users.flatMap((u) => Array.from({ length: 5 }, () => store.inUserTransaction(u, (uow) => nextVersions(uow, 40)))),
    );
    const all = batches.flat();
    expect(new Set(all.map(String)).size).toBe(all.length);
    for (const batch of batches) for (let i = 1; i < batch.length; i++) expect(batch[i]! > batch[i - 1]!).toBe(true);
  });

  describe.each(['whole', 'item by item'] as const)('SyncService, push %s', (mode) => {
    const service = { push: (...a: Parameters<SyncApi['push']>) => services[mode].push(...a), pull: (...a: Parameters<SyncApi['pull']>) => services[mode].pull(...a) };

    it('parallel conflicting edits from 4 devices lose no write: each is in the row or in a loser snapshot', async () => {
      const user = await createUser();
      const created = await service.push(user, {
        calendars: [up('cal', { name: 'Home' }, null)],
        events: [up('ev', { calendarUid: 'cal', title: 'start', startTime: T0, endTime: T1 }, null)],
      });
      const start = versionOf(created.events[0]!);
      const acknowledged: { device: number; title: string; status: string }[][] = [[], [], [], []];
      await Promise.all(
        [0, 1, 2, 3].map(async (device) => {
          let base = start;
          for (let round = 0; round < 6; round++) {
            const title = `d${device}-r${round}`;
            const res = await service.push(user, { events: [up('ev', { title }, base)] });
            const result = res.events[0]!;
            expect(['updated', 'conflict']).toContain(result.status);
            acknowledged[device]!.push({ device, title, status: result.status });
            base = versionOf(result);
          }
        }),
      );
      const row = await database.db.selectFrom('events').select('title').where('user_id', '=', user).where('uid', '=', 'ev').executeTakeFirstOrThrow();
      const snapshots = await database.db.selectFrom('sync_conflicts').select('loser_snapshot').where('user_id', '=', user).execute();
      expect(snapshots.length).toBeGreaterThanOrEqual(3); // first round: all four start from the same base
      const kept = new Set([row.title, ...snapshots.map((s) => String(s.loser_snapshot.title))]);
      for (const writes of acknowledged) {
        writes.forEach((w, i) => {
          const next = writes[i + 1];
          // A clean update by the same device replaces only that device's own previous write.
          if (next !== undefined && next.status === 'updated') return;
          expect(kept.has(w.title), `write ${w.title} is kept`).toBe(true);
        });
      }
    });

    it('parallel default-calendar pushes from 4 devices never leave two live defaults', async () => {
      const user = await createUser();
      await service.push(user, { calendars: [up('home', { name: 'Home', isDefault: true }, null)] });
      const own = await Promise.all(
        [0, 1, 2, 3].map(async (d) => versionOf((await service.push(user, { calendars: [up(`own-${d}`, { name: `Own ${d}` }, null)] })).calendars[0]!)),
      );
      const results = await Promise.all(
        [0, 1, 2, 3].map((d) =>
          service.push(user, {
            calendars: [up(`own-${d}`, { isDefault: true }, own[d]!), up(`new-${d}`, { name: `New ${d}`, isDefault: true }, null)],
          }),
        ),
      );
      for (const res of results) for (const r of res.calendars) expect(r.status).not.toBe('error');
      const { rows } = await sql<{ n: number }>`
        select count(*)::integer as n from calendars where user_id = ${user} and is_default and deleted is null`.execute(database.db);
      expect(rows[0]!.n).toBe(1);
    });

    it('pulls running during pushes never drop a change for good', async () => {
      const user = await createUser();
      await service.push(user, { calendars: [up('cal', { name: 'C' }, null)] });
      let stop = false;
      const puller = async (): Promise<Map<string, bigint>> => {
        const seen = new Map<string, bigint>();
        let cursor: string | undefined;
        const highest: Partial<Record<RecordType, bigint>> = {};
        const pullOnce = async () => {
          const page = await service.pull(user, cursor === undefined ? { limit: 3 } : { cursor, limit: 3 });
          for (const type of ['calendars', 'events', 'tasks', 'reminders'] as const) {
            for (const rec of page[type]) {
              const v = BigInt(rec.version!);
              expect(v > (highest[type] ?? 0n), 'each page continues the previous one in version order').toBe(true);
              highest[type] = v;
              const key = `${type}/${rec.uid}`;
              if ((seen.get(key) ?? 0n) < v) seen.set(key, v);
            }
          }
          cursor = page.nextCursor;
          return page.hasMore;
        };
        while (!stop) await pullOnce();
        while (await pullOnce());
        return seen;
      };
      const pusher = async (p: number) => {
        const versions = new Map<string, string>();
        for (let i = 0; i < 15; i++) {
          const uid = `p${p}-e${i % 5}`;
          const base = versions.get(uid) ?? null;
          const fields = base === null ? { calendarUid: 'cal', title: `t${i}`, startTime: T0, endTime: T1 } : { title: `t${i}` };
          const res = await service.push(user, { events: [up(uid, fields, base)], tasks: [up(`p${p}-t${i}`, { title: `task ${i}` }, null)] });
          versions.set(uid, versionOf(res.events[0]!));
        }
      };
      const pullers = [puller(), puller()];
      await Promise.all([0, 1, 2, 3].map(pusher));
      stop = true;
      for (const seen of await Promise.all(pullers)) {
        let total = 0;
        for (const type of ['calendars', 'events', 'tasks'] as const) {
          const rows = await database.db.selectFrom(type).select(['uid', 'version']).where('user_id', '=', user).execute();
          expect(rows.length).toBeGreaterThan(0);
          total += rows.length;
          for (const r of rows) expect(seen.get(`${type}/${r.uid}`), `${type}/${r.uid}`).toBe(BigInt(r.version));
        }
        expect(seen.size).toBe(total);
      }
    });
  });
});
