import { CursorCodec, SyncService } from '@calsync/domain';
import { describe, expect, it } from 'vitest';
import { FixedClock } from './clocks.js';
import { InMemorySyncStore } from './in-memory-sync-store.js';
import { SimulatedDevice } from './simulated-device.js';

const U = 7;
async function world() {
  const store = new InMemorySyncStore();
  const svc = new SyncService({ store, clock: new FixedClock(), cursorCodec: new CursorCodec('d') });
  await svc.push(U, { calendars: [{ uid: 'srv', op: 'upsert', baseVersion: null, fields: { name: 'Personal', isDefault: true } }] });
  return { store, svc };
}
const times = { startTime: '2024-01-01T10:00:00.000Z', endTime: '2024-01-01T11:00:00.000Z' };

describe('SimulatedDevice', () => {
  it('bootstraps by pull before its first push, so the server default arrives first', async () => {
    const { svc } = await world();
    const d = new SimulatedDevice(svc, U);
    d.upsert('calendars', 'mine', { name: 'Mine' });
    await d.sync();
    expect(d.list('calendars').map(([uid, r]) => [uid, r.version])).toEqual([['mine', '2'], ['srv', '1']]);
    expect(d.outbox).toEqual([]);
  });

  it('re-keys a local default calendar merged into the server one, with every local reference', async () => {
    const { svc, store } = await world();
    const d = new SimulatedDevice(svc, U);
    d.upsert('calendars', 'local-default', { name: 'Local', isDefault: true });
    d.upsert('events', 'ev', { calendarUid: 'local-default', title: 'E', ...times });
    await d.sync(); // the event fails in the same batch (unknown calendarUid) and is re-pointed
    expect(d.records.calendars.has('local-default')).toBe(false);
    expect(d.records.events.get('ev')?.fields.calendarUid).toBe('srv');
    await d.sync(); // retried with the new reference
    expect(d.outbox).toEqual([]);
    expect(store.snapshotRows(U, 'events').map((r) => r.fields.calendarUid)).toEqual(['srv']);
    expect(store.snapshotRows(U, 'calendars').map((r) => r.uid)).toEqual(['srv']);
  });

  it('parks an item after 5 failed attempts', async () => {
    const { svc } = await world();
    const d = new SimulatedDevice(svc, U);
    await d.sync();
    d.upsert('events', 'orphan', { calendarUid: 'nowhere', title: 'E', ...times });
    for (let i = 0; i < 4; i++) await d.sync();
    expect(d.outbox.map((e) => e.attempts)).toEqual([4]);
    await d.sync();
    expect(d.outbox).toEqual([]);
    expect(d.parked.map((e) => [e.uid, e.attempts])).toEqual([['orphan', 5]]);
  });

  it('consumes a conflict result, keeps the returned version, and removes tombstones on pull', async () => {
    const { svc } = await world();
    const a = new SimulatedDevice(svc, U);
    const b = new SimulatedDevice(svc, U);
    a.upsert('tasks', 't', { title: 'T' });
    await a.sync();
    await b.sync();
    a.upsert('tasks', 't', { title: 'by a' });
    b.upsert('tasks', 't', { title: 'by b' });
    await a.sync();
    await b.sync();
    expect(b.conflicts).toHaveLength(1);
    expect(b.outbox).toEqual([]);
    await a.sync();
    expect(a.records.tasks.get('t')).toEqual(b.records.tasks.get('t'));
    expect(a.records.tasks.get('t')?.fields.title).toBe('by b');
    b.delete('tasks', 't');
    await b.sync();
    await a.sync();
    expect(a.records.tasks.has('t')).toBe(false);
  });
});
