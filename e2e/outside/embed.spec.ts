// A service that embeds the domain, tested in its own vitest with @calsync/testkit's in-memory store.
import { CursorCodec, SyncService } from '@calsync/domain';
import { FixedClock, InMemorySyncStore } from '@calsync/testkit';
import { expect, it } from 'vitest';

it('pushes a stale edit, gets a conflict, and pulls the winner', async () => {
  const sync = new SyncService({ store: new InMemorySyncStore(), clock: new FixedClock(), cursorCodec: new CursorCodec('an embedding service secret, 32+ chars') });
  const created = await sync.push(7, { tasks: [{ uid: 't1', op: 'upsert', baseVersion: null, fields: { title: 'Plan' } }] });
  const first = created.tasks[0]!;
  if (first.status === 'error') throw new Error(first.error.message);
  const v1 = first.version!;
  await sync.push(7, { tasks: [{ uid: 't1', op: 'upsert', baseVersion: v1, fields: { title: 'First' } }] });
  const stale = await sync.push(7, { tasks: [{ uid: 't1', op: 'upsert', baseVersion: v1, fields: { title: 'Second' } }] });
  expect(stale.tasks[0]!.status).toBe('conflict');
  expect(stale.conflicts[0]!.loserSnapshot.title).toBe('First');
  const page = await sync.pull(7, {});
  expect(page.tasks.map((t) => t.title)).toEqual(['Second']);
});
