import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from './database.js';
import { MIGRATIONS } from './migrations/index.js';
import { migrateToLatest } from './migrate.js';
import { announceDatabaseKinds, openTestDatabase, type TestDatabase } from '../test-support/index.js';

const kinds = announceDatabaseKinds('database.pg.test.ts');

describe.each(kinds)('database (%s)', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase(kind);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('pings and reports its kind', async () => {
    expect(database.kind).toBe(kind);
    expect(await database.ping()).toBe(true);
  });

  it('returns INT8 as a decimal string, beyond 2^53 too', async () => {
    const { rows } = await sql<{ big: string }>`select 9007199254740993::int8 as big`.execute(database.db);
    expect(rows[0]?.big).toBe('9007199254740993');
  });

  it('has applied every migration, and a second run applies nothing', async () => {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.db);
    expect(rows.map((r) => r.name)).toEqual(Object.keys(MIGRATIONS).sort());
    expect((await migrateToLatest(database.db)).applied).toEqual([]);
  });

  it('rolls back a failed transaction and keeps a committed one', async () => {
    const db = database.db;
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('users').values({ phone: '+15550000001', email: null, password_hash: null, last_sync_time: null }).execute();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('users').values({ phone: '+15550000002', email: null, password_hash: null, last_sync_time: null }).execute();
    });
    const phones = await db.selectFrom('users').select('phone').orderBy('phone').execute();
    expect(phones.map((p) => p.phone)).toEqual(['+15550000002']);
  });

  it('supports savepoints: a failed nested transaction undoes only its own writes', async () => {
    const db = database.db;
    const trx = await db.startTransaction().execute();
    await trx.insertInto('users').values({ phone: '+15550000003', email: null, password_hash: null, last_sync_time: null }).execute();
    const sp = await trx.savepoint('inner').execute();
    await sp.insertInto('users').values({ phone: '+15550000004', email: null, password_hash: null, last_sync_time: null }).execute();
    await sp.rollbackToSavepoint('inner').execute();
    await trx.commit().execute();
    const phones = await db.selectFrom('users').select('phone').where('phone', 'in', ['+15550000003', '+15550000004']).execute();
    expect(phones.map((p) => p.phone)).toEqual(['+15550000003']);
  });

  it('enforces unique lower(email) and the users defaults', async () => {
    const db = database.db;
    const row = await db.insertInto('users').values({ email: 'A@x.io', phone: null, password_hash: null, last_sync_time: null }).returningAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ name: '', role: 'USER', is_phone_verified: false });
    expect(row.notification_settings).toEqual({ syncNotifications: true, eventReminders: true, conflictAlerts: true });
    await expect(db.insertInto('users').values({ email: 'a@X.io', phone: null, password_hash: null, last_sync_time: null }).execute()).rejects.toThrow();
  });
});

describe('createDatabase URLs', () => {
  it('rejects an unknown scheme and a bad schema name', async () => {
    await expect(createDatabase('mysql://x')).rejects.toThrow(/DATABASE_URL/);
    await expect(createDatabase('pglite://memory', { schema: 'x; drop table users' })).rejects.toThrow(/schema/);
  });

  it('pglite://<dir> creates the folder and keeps data across reopenings', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'calsync-pglite-'));
    const dir = join(parent, 'nested', 'data');
    try {
      const first = await createDatabase(`pglite://${dir}`);
      expect(first.kind).toBe('pglite');
      await migrateToLatest(first.db);
      await first.db.insertInto('users').values({ phone: '+15559990000', email: null, password_hash: null, last_sync_time: null }).execute();
      await first.close();
      await expect(first.ping()).rejects.toThrow();
      const second = await createDatabase(`pglite://${dir}`);
      expect((await migrateToLatest(second.db)).applied).toEqual([]);
      const phones = await second.db.selectFrom('users').select('phone').execute();
      expect(phones.map((p) => p.phone)).toEqual(['+15559990000']);
      await second.close();
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});
