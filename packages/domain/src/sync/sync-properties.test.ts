import fc from 'fast-check';
import { FixedClock, InMemorySyncStore, itemByItem, SEED_CHANGESET, smallChangesetArb, propertyRuns } from '@calsync/testkit';
import { describe, expect, it } from 'vitest';
import { CursorCodec } from '../cursor/cursor-codec.js';
import { perRecordType } from '../records/per-record-type.js';
import { RECORD_TYPES, type RecordType } from '../records/types.js';
import { SyncService } from './sync-service.js';
import type { PushChangeset, PushItem } from './types.js';

/** `FC_RUNS` multiplies the number of runs (e.g. FC_RUNS=20 for a long soak). */
const RUNS = propertyRuns();
const runs = (n: number) => ({ numRuns: n * RUNS });

const codec = new CursorCodec('property-secret');
/** A service on a fresh in-memory store; with `itemByItem`, pushes go through the per-item oracle. */
function service(oneByOne = false, store = new InMemorySyncStore()) {
  const engine = new SyncService({ store, clock: new FixedClock(), cursorCodec: codec });
  return { store, svc: oneByOne ? itemByItem(engine) : engine };
}

const BASE_VERSIONS = ['1', '2', '3', '4', '5', '6'];
const SEED = SEED_CHANGESET;
const changesetArb = smallChangesetArb(BASE_VERSIONS, 4);

function dump(store: InMemorySyncStore, user: number) {
  return { rows: RECORD_TYPES.map((t) => store.snapshotRows(user, t)), conflicts: store.snapshotConflicts(user), last: store.lastVersion };
}

describe('push properties', () => {
  it('a push gives the same results and the same stored state as its items pushed one by one (the per-item oracle)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(changesetArb, { minLength: 1, maxLength: 3 }), async (pushes) => {
        const a = service(true);
        const b = service(false);
        await a.svc.push(1, SEED);
        await b.svc.push(1, SEED);
        for (const changes of pushes) {
          expect(await b.svc.push(1, changes)).toEqual(await a.svc.push(1, changes));
        }
        expect(dump(b.store, 1)).toEqual(dump(a.store, 1));
      }),
      runs(200),
    );
  }, 30_000 * RUNS);

  it('replaying any applied push, whole or partial, returns the same results and changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(changesetArb, fc.boolean(), fc.array(fc.boolean(), { minLength: 16, maxLength: 16 }), async (changes, batch, keep) => {
        const { svc, store } = service(!batch);
        await svc.push(1, SEED);
        const first = await svc.push(1, changes);
        const before = dump(store, 1);
        const replay: Record<string, PushItem[]> = {};
        const expected: Record<string, unknown[]> = {};
        let k = 0;
        for (const type of RECORD_TYPES) {
          replay[type] = [];
          expected[type] = [];
          (changes[type] ?? []).forEach((item, i) => {
            const result = first[type][i]!;
            if (result.status !== 'error' && keep[k++ % keep.length]) {
              replay[type]!.push(item);
              expected[type]!.push(result);
            }
          });
        }
        const again = await svc.push(1, replay as PushChangeset);
        for (const type of RECORD_TYPES) expect(again[type]).toEqual(expected[type]);
        expect(again.conflicts).toEqual([]);
        expect(dump(store, 1)).toEqual(before);
      }),
      runs(200),
    );
  }, 30_000 * RUNS);

  it('versions strictly increase globally across types and users', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom(1, 2), changesetArb), { minLength: 1, maxLength: 6 }), fc.boolean(), async (pushes, batch) => {
        const { svc, store } = service(!batch);
        await svc.push(1, SEED);
        await svc.push(2, SEED);
        const versions = () => new Map([1, 2].flatMap((u) => RECORD_TYPES.flatMap((t) => store.snapshotRows(u, t).map((r) => [`${u}/${t}/${r.uid}`, r.version] as const))));
        for (const [user, changes] of pushes) {
          const before = versions();
          const highest = [...before.values()].reduce((a, b) => (a > b ? a : b), 0n);
          const res = await svc.push(user, changes);
          // every row this push wrote has a version above every version that existed before it
          for (const [key, v] of versions()) if (before.get(key) !== v) expect(v).toBeGreaterThan(highest);
          for (const type of RECORD_TYPES) {
            for (const r of res[type]) if (r.status !== 'error' && r.version !== null) expect(BigInt(r.version)).toBeLessThanOrEqual(store.lastVersion);
          }
        }
        const all = [1, 2].flatMap((u) => RECORD_TYPES.flatMap((t) => store.snapshotRows(u, t).map((r) => r.version)));
        expect(new Set(all).size).toBe(all.length);
        for (const v of all) expect(v).toBeLessThanOrEqual(store.lastVersion);
      }),
      runs(200),
    );
  }, 30_000 * RUNS);
});

describe('pull properties', () => {
  it('from any valid cursor, any page size yields every later change exactly once, in version order, only the caller\'s', async () => {
    const step = fc.record({ user: fc.constantFrom(1, 2), changes: changesetArb, save: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 7 }), fc.array(changesetArb, { maxLength: 2 }), async (steps, limit, during) => {
        const { svc, store } = service();
        await svc.push(1, SEED);
        await svc.push(2, { calendars: [{ uid: 'other', op: 'upsert', baseVersion: null, fields: { name: 'not yours' } }] });
        const cursors: (string | undefined)[] = [undefined];
        for (const s of steps) {
          await svc.push(s.user, s.changes);
          if (s.save) cursors.push((await svc.pull(1, { limit: 1000 })).nextCursor);
        }
        for (const start of cursors) {
          const wm = codec.decode(start, 1).watermarks;
          const seen: Record<RecordType, { uid: string; version: bigint }[]> = perRecordType(() => []);
          let cursor = start;
          let pages = 0;
          const pending = [...during];
          for (;;) {
            const page = await svc.pull(1, { cursor, limit });
            pages += 1;
            for (const type of RECORD_TYPES) {
              expect(page[type].length).toBeLessThanOrEqual(limit);
              for (const r of page[type]) seen[type].push({ uid: r.uid, version: BigInt(r.version!) });
            }
            cursor = page.nextCursor;
            // Writes arriving between pages must not be dropped.
            const next = pending.shift();
            if (next) await svc.push(1, next);
            if (!page.hasMore && !next) break;
            expect(pages).toBeLessThan(1000);
          }
          for (const type of RECORD_TYPES) {
            const versions = seen[type].map((s) => s.version);
            for (let i = 1; i < versions.length; i++) expect(versions[i]!).toBeGreaterThan(versions[i - 1]!);
            const rows = store.snapshotRows(1, type).filter((r) => r.version > wm[type]);
            // every row's latest state was delivered, and nothing of another user's
            for (const r of rows) expect(seen[type]).toContainEqual({ uid: r.uid, version: r.version });
            const mine = new Set(store.snapshotRows(1, type).map((r) => r.uid));
            for (const s of seen[type]) expect(mine.has(s.uid)).toBe(true);
            if (during.length === 0) expect(seen[type]).toEqual(rows.sort((a, b) => (a.version < b.version ? -1 : 1)).map((r) => ({ uid: r.uid, version: r.version })));
          }
        }
      }),
      runs(200),
    );
  }, 30_000 * RUNS);
});
