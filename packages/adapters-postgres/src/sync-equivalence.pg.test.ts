import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorCodec, perRecordType, RECORD_TYPES, SyncService, type SyncApi } from '@calsync/domain';
import { FixedClock, InMemorySyncStore, itemByItem, SEED_CHANGESET, smallChangesetArb } from '@calsync/testkit';
import { PostgresSyncStore } from './postgres-sync-store.js';
import { announceDatabaseKinds, openTestDatabase, type TestDatabase } from '../test-support/index.js';

// The engine's property tests (testkit/src/sync-properties.test.ts) prove their invariants on the
// in-memory store. Here the same random push and pull sequences run on the SQL store and on the
// in-memory one, from the same empty state, and must give identical answers and stored rows: so
// every invariant proven there holds on PGlite / PostgreSQL too. Fewer runs (each resets the database).
const kinds = announceDatabaseKinds('sync-equivalence.pg.test.ts');
const RUNS = Math.max(1, Number(process.env.FC_RUNS ?? '1') || 1);

const BASE_VERSIONS = ['1', '2', '3', '4', '5', '6', '7', '8'];
const SEED = SEED_CHANGESET;
const changesetArb = smallChangesetArb(BASE_VERSIONS, 3);
const stepArb = fc.oneof(
  fc.record({ kind: fc.constant('push' as const), user: fc.constantFrom(1, 2), changes: changesetArb }),
  fc.record({ kind: fc.constant('pull' as const), user: fc.constantFrom(1, 2), limit: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('conflicts' as const), user: fc.constantFrom(1, 2), action: fc.constantFrom('restore' as const, 'dismiss' as const) }),
);

describe.each(kinds)('SyncService on PostgresSyncStore (%s) answers like the in-memory store', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase(kind);
  });
  afterAll(async () => {
    await database?.close();
  });

  /** Empties every table and restarts identities and the version sequence, then makes users 1 and 2. */
  async function reset(): Promise<void> {
    await sql`truncate users, devices, calendars, events, tasks, reminders, sync_conflicts, push_receipts restart identity cascade`.execute(database.db);
    await sql`alter sequence record_version_seq restart with 1`.execute(database.db);
    await sql`insert into users (phone) values ('+15551000001'), ('+15551000002')`.execute(database.db);
  }

  const service = (store: InMemorySyncStore | PostgresSyncStore, mode: 'whole' | 'item by item'): SyncApi => {
    const engine = new SyncService({ store, clock: new FixedClock(), cursorCodec: new CursorCodec('equivalence') });
    return mode === 'whole' ? engine : itemByItem(engine);
  };

  it('the same pushes, pulls and conflict resolutions give the same results and the same rows', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 6 }), fc.constantFrom('whole' as const, 'item by item' as const), async (steps, mode) => {
        await reset();
        const sqlStore = new PostgresSyncStore(database.db, { beginInOneRoundTrip: database.kind === 'postgres' });
        const memStore = new InMemorySyncStore();
        const onSql = service(sqlStore, mode);
        const onMem = service(memStore, mode);
        const both = async <T>(f: (s: SyncApi) => Promise<T>): Promise<[T, T]> => [await f(onMem), await f(onSql)];
        const cursors: Record<number, string | undefined> = {};

        for (const user of [1, 2]) {
          const [a, b] = await both((s) => s.push(user, SEED));
          expect(b).toEqual(a);
        }
        for (const step of steps) {
          if (step.kind === 'push') {
            const [a, b] = await both((s) => s.push(step.user, step.changes));
            expect(b).toEqual(a);
          } else if (step.kind === 'pull') {
            const [a, b] = await both((s) => s.pull(step.user, { cursor: cursors[step.user], limit: step.limit }));
            expect(b).toEqual(a);
            cursors[step.user] = a.nextCursor;
          } else {
            const [a, b] = await both((s) => s.listConflicts(step.user, {}));
            expect(b).toEqual(a);
            const first = a.conflicts[0];
            if (first !== undefined) {
              const outcome = async (s: SyncApi) => s.resolveConflict(step.user, first.conflictId, step.action).catch((e: unknown) => ({ error: (e as { code?: string }).code }));
              const [ra, rb] = await both(outcome);
              expect(rb).toEqual(ra);
            }
          }
        }
        for (const user of [1, 2]) {
          const changes = await sqlStore.inUserTransaction(user, (uow) => uow.readChangesSince(perRecordType(() => 0n), 10_000));
          for (const type of RECORD_TYPES) {
            const rows = changes.rows[type];
            const expected = memStore.snapshotRows(user, type).sort((x, y) => (x.version < y.version ? -1 : 1));
            expect(rows).toEqual(expected);
          }
        }
      }),
      { numRuns: 20 * RUNS },
    );
  });
});
