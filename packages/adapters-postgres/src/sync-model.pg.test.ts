import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { CursorCodec, RECORD_TYPES, SyncService, type SyncStore } from '@calsync/domain';
import { FixedClock, InMemorySyncStore, itemByItem, SEED_CHANGESET, smallChangesetArb, propertyRuns } from '@calsync/testkit';
import { PostgresSyncStore } from './postgres-sync-store.js';
import { recordFromSql } from './record-mapping.js';
import { recordQuery } from './record-queries.js';
import { announceDatabaseKinds, openTestDatabase, type TestDatabase } from '../test-support/index.js';
import { DrawnNumbers } from '../test-support/model/drawn-numbers.js';
import { GroupPushCommand } from '../test-support/model/group-push-command.js';
import { PullCommand } from '../test-support/model/pull-command.js';
import { PushCommand } from '../test-support/model/push-command.js';
import { ResolveCommand } from '../test-support/model/resolve-command.js';
import { expectSameRows, type SyncModel, type SyncReal } from '../test-support/model/sync-model.js';

// Model-based test of the engine on the SQL store: random sequences of push, pull and resolve
// commands run on the engine over PGlite / PostgreSQL (the real system) and over the in-memory
// store (the model), from the same empty state; every answer and, at the end, every stored row
// must be equal. So every invariant the engine's property tests prove on the in-memory store
// (packages/domain/src/sync/sync-properties.test.ts) holds on the SQL stores too. In half the runs
// the model pushes item by item (the per-item oracle) while the real system pushes whole. Pushes
// that arrive together (`GroupPushCommand`) are committed as one group on the real system and one
// after another on the model. Versions and ids are compared by their place among the values each
// system handed out (`DrawnNumbers`): the SQL store draws a push's likely reservation ahead, with
// its prefetch, and does not hand out all of it.
const kinds = announceDatabaseKinds('sync-model.pg.test.ts');
const RUNS = propertyRuns();
const USERS = [1, 2] as const;

const changesetArb = smallChangesetArb(['1', '2', '3', '4', '5', '6', '7', '8'], 3);
const userArb = fc.constantFrom(...USERS);
const commandsArb = fc.commands(
  [
    fc.tuple(userArb, changesetArb).map(([user, changes]) => new PushCommand(user, changes)),
    fc.tuple(userArb, fc.array(changesetArb, { minLength: 2, maxLength: 4 })).map(([user, pushes]) => new GroupPushCommand(user, pushes)),
    fc.tuple(userArb, fc.integer({ min: 1, max: 4 })).map(([user, limit]) => new PullCommand(user, limit)),
    fc.tuple(userArb, fc.constantFrom('restore' as const, 'dismiss' as const)).map(([user, action]) => new ResolveCommand(user, action)),
  ],
  { maxCommands: 6 },
);

describe.each(kinds)('the engine on PostgresSyncStore (%s) behaves like its in-memory model', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase(kind);
  });
  afterAll(async () => {
    await database?.close();
  });

  /** Empties every table and restarts identities and the version sequence, then makes users 1 and 2. */
  async function reset(): Promise<void> {
    await sql.raw(`truncate users, devices, ${RECORD_TYPES.join(', ')}, sync_conflicts, push_receipts restart identity cascade`).execute(database.db);
    await sql`alter sequence record_version_seq restart with 1`.execute(database.db);
    await sql`insert into users (phone) values ('+15551000001'), ('+15551000002')`.execute(database.db);
  }

  it('push, pull and resolve answer alike and leave the same rows', async () => {
    await fc.assert(
      fc.asyncProperty(commandsArb, fc.boolean(), async (commands, modelItemByItem) => {
        await reset();
        const codec = new CursorCodec('model');
        const engine = (store: SyncStore) => new SyncService({ store, clock: new FixedClock(), cursorCodec: codec });
        const memory = new InMemorySyncStore();
        const sqlStore = new PostgresSyncStore(database.db);
        const [modelNumbers, realNumbers] = [new DrawnNumbers(), new DrawnNumbers()];
        const modelEngine = engine(modelNumbers.recording(memory));
        const model: SyncModel = { sync: modelItemByItem ? itemByItem(modelEngine) : modelEngine, store: memory, cursors: new Map(), numbers: modelNumbers, codec };
        const real: SyncReal = {
          sync: engine(realNumbers.recording(sqlStore)),
          cursors: new Map(),
          numbers: realNumbers,
          rows: async (user, type) =>
            (await recordQuery(type, user, sql`true`, sql`order by version`).execute(database.db)).rows.map((r) => recordFromSql(type, r)),
        };
        for (const user of USERS) await new PushCommand(user, SEED_CHANGESET).run(model, real);
        await fc.asyncModelRun(() => ({ model, real }), commands);
        await expectSameRows(model, real, USERS);
      }),
      { numRuns: 20 * RUNS },
    );
  });
});
