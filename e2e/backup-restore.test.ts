import { startStandInSmsGateway, type StandInSmsGateway } from '@calsync/testkit';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from './lib/http.js';
import { createScratchDatabase, type ScratchDatabase } from './lib/scratch-database.js';
import { RealServerProcess } from './lib/server-process.js';

// The backup-and-restore drill of ops/README.md, run as written: PostgreSQL with pg_dump (custom
// format) and pg_restore into a new database; PGlite by copying its folder while the server is
// stopped. Either way the restored service answers the old device, with its old token, with
// everything it had.
const ENV = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'warn',
  JWT_SECRET: 'e2e-access-secret-0123456789abcdefghijkl',
  JWT_REFRESH_SECRET: 'e2e-refresh-secret-0123456789abcdefghij',
  SYNC_CURSOR_SECRET: 'e2e-cursor-secret-0123456789abcdefghijk',
  SMS_GATEWAY_API_KEY: 'e2e-gateway-key-0123456789abcdef',
  SMS_GATEWAY_SENDER: 'CalsyncE2E',
};

describe('backup and restore drill', () => {
  const dir = mkdtempSync(join(tmpdir(), 'calsync-backup-'));
  let gateway: StandInSmsGateway;
  const servers: RealServerProcess[] = [];
  const databases: ScratchDatabase[] = [];
  beforeAll(async () => {
    gateway = await startStandInSmsGateway();
  });
  afterAll(async () => {
    for (const s of servers) if (s.running) await s.terminate();
    for (const d of databases) await d.drop();
    await gateway?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const start = async (databaseUrl: string) => {
    const server = new RealServerProcess({ ...ENV, DATABASE_URL: databaseUrl, SMS_GATEWAY_URL: gateway.url });
    servers.push(server);
    await server.start();
    return server;
  };

  /** Signs a phone in and pushes three events; the token and what a full pull shows. */
  async function fill(server: RealServerProcess, phone: string): Promise<{ token: string; uids: string[] }> {
    const http = new HttpClient(server.baseUrl);
    await http.ok('POST', '/api/auth/send-otp', { body: { phone } });
    const { accessToken } = await http.ok<{ accessToken: string }>('POST', '/api/auth/verify-otp', { body: { phone, otp: gateway.lastCode(phone) } });
    const before = await http.ok<{ calendars: { uid: string }[] }>('GET', '/api/sync/changes', { token: accessToken });
    const calendarUid = before.calendars[0]!.uid;
    const events = ['ev-a', 'ev-b', 'ev-c'].map((uid) => ({ uid, op: 'upsert', baseVersion: null, calendarUid, title: uid, startTime: '2030-01-07T09:00:00Z', endTime: '2030-01-07T10:00:00Z' }));
    await http.ok('POST', '/api/sync/push', { token: accessToken, body: { events } });
    return { token: accessToken, uids: await everything(server, accessToken) };
  }

  async function everything(server: RealServerProcess, token: string): Promise<string[]> {
    const page = await new HttpClient(server.baseUrl).ok<Record<string, { uid: string; version: string }[]>>('GET', '/api/sync/changes', { token });
    return ['calendars', 'events', 'tasks', 'reminders'].flatMap((t) => page[t]!.map((r) => `${t}/${r.uid}@${r.version}`)).sort();
  }

  it.runIf(process.env.TEST_DATABASE_URL)('PostgreSQL: pg_dump, pg_restore into a new database, start on it', async () => {
    const original = await createScratchDatabase(process.env.TEST_DATABASE_URL!);
    const restored = await createScratchDatabase(process.env.TEST_DATABASE_URL!);
    databases.push(original, restored);
    const server = await start(original.url);
    const { token, uids } = await fill(server, '+15550420001');
    expect(uids.filter((u) => u.startsWith('events/'))).toHaveLength(3);

    const dump = join(dir, 'calsync.dump');
    execFileSync('pg_dump', ['--format=custom', `--file=${dump}`, original.url]);
    execFileSync('pg_restore', ['--no-owner', `--dbname=${restored.url}`, dump]);
    await server.terminate();

    const again = await start(restored.url);
    expect(await everything(again, token)).toEqual(uids);
    await again.terminate();
  });

  it('PGlite: copy the folder while the server is stopped, start on the copy', async () => {
    const data = join(dir, 'pglite');
    const server = await start(`pglite://${data}`);
    const { token, uids } = await fill(server, '+15550420002');
    expect((await server.terminate()).code).toBe(0);

    const copy = join(dir, 'pglite-restored');
    cpSync(data, copy, { recursive: true });
    const again = await start(`pglite://${copy}`);
    expect(await everything(again, token)).toEqual(uids);
    await again.terminate();
  });
});
