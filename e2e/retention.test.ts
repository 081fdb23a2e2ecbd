import { createSyncClient, MemoryStore, type SyncClient } from '@calsync/client';
import { until } from '@calsync/testkit';
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from './lib/http.js';
import { sampleValue } from './lib/metrics-text.js';
import { createScratchDatabase, type ScratchDatabase } from './lib/scratch-database.js';
import { startTestServer, type TestServer } from './lib/test-server.js';

// A device offline for longer than TOMBSTONE_RETENTION (docs/protocol.md, "Retention"), with the
// SDK over real HTTP against the real server process: the maintenance job (every second here)
// removes the tombstone it never saw, so its next pull is a full snapshot (cursorReset) and the
// SDK drops the record the snapshot no longer names.
const kinds: { name: string; make: () => Promise<ScratchDatabase> }[] = [{ name: 'pglite://memory', make: async () => ({ url: 'pglite://memory', drop: async () => {} }) }];
if (process.env.TEST_DATABASE_URL) kinds.push({ name: 'PostgreSQL', make: () => createScratchDatabase(process.env.TEST_DATABASE_URL!) });

describe.each(kinds)('a device offline past the tombstone horizon ($name)', ({ make }) => {
  let test: TestServer | undefined;
  let database: ScratchDatabase | undefined;
  const phone = `+1555${String(randomInt(1_000_000, 9_999_999))}`;
  const clients: SyncClient[] = [];

  const device = (name: string, store = new MemoryStore()): SyncClient => {
    const c = createSyncClient({ baseUrl: test!.server.baseUrl, store, device: { platform: 'e2e', name } });
    clients.push(c);
    return c;
  };
  const signIn = async (c: SyncClient) => {
    await c.open();
    await c.auth.sendOtp(phone, 'Ret');
    await c.auth.verifyOtp(phone, test!.gateway.lastCode(phone));
  };
  const metric = async (series: string) => sampleValue((await new HttpClient(test!.server.baseUrl).request<string>('GET', '/metrics')).text, series) ?? 0;

  beforeAll(async () => {
    database = await make();
    test = await startTestServer('retention', { DATABASE_URL: database.url, TOMBSTONE_RETENTION: '1s', RECEIPT_RETENTION: '1s', MAINTENANCE_INTERVAL: '1s' });
  }, 120_000);

  afterAll(async () => {
    for (const c of clients) await c.close();
    await test?.stop();
    await database?.drop();
  }, 60_000);

  it('gets a full snapshot and drops the record deleted while it was away', async () => {
    const laptop = device('laptop');
    const phoneStore = new MemoryStore();
    const away = device('phone', phoneStore);
    await signIn(laptop);
    await signIn(away);
    const calendarUid = laptop.calendars.list()[0]!.uid;
    await laptop.events.put({ uid: 'ev-gone', calendarUid, title: 'Cancelled', startTime: '2030-01-07T09:00:00.000Z', endTime: '2030-01-07T10:00:00.000Z' });
    await laptop.events.put({ uid: 'ev-kept', calendarUid, title: 'Kept', startTime: '2030-01-08T09:00:00.000Z', endTime: '2030-01-08T10:00:00.000Z' });
    await laptop.sync();
    await away.sync();
    expect(away.events.list().map((e) => e.uid).sort()).toEqual(['ev-gone', 'ev-kept']);
    await away.close();

    const resetsBefore = await metric('calsync_sync_cursor_resets_total{cursor_sent="true"}');
    const purgedBefore = await metric('calsync_retention_rows_removed_total{kind="tombstones"}');
    await laptop.events.remove('ev-gone');
    await laptop.sync();
    // The maintenance job runs every second: wait until it removed the tombstone.
    await until(async () => (await metric('calsync_retention_rows_removed_total{kind="tombstones"}')) > purgedBefore, { ms: 30_000, every: 250, what: 'the maintenance job to remove the tombstone' });

    const back = device('phone', phoneStore);
    await back.open();
    expect(back.events.list().map((e) => e.uid).sort()).toEqual(['ev-gone', 'ev-kept']);
    await back.sync();
    expect(back.events.list().map((e) => e.uid)).toEqual(['ev-kept']);
    expect(back.calendars.list().map((c) => c.uid)).toEqual([calendarUid]);
    expect(await metric('calsync_sync_cursor_resets_total{cursor_sent="true"}')).toBe(resetsBefore + 1);
    expect(await metric('calsync_maintenance_runs_total{outcome="ran"}')).toBeGreaterThan(0);
  });
});
