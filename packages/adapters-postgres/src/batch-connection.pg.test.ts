import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceDatabaseKinds, openTestDatabase, type TestDatabase } from '../test-support/index.js';
import { rawPart, withBatchConnection, type BatchConnection, type BatchPart } from './batch-connection.js';

const kinds = announceDatabaseKinds('batch-connection.pg.test.ts');

/** Text a literal must carry byte for byte: quotes, backslashes, array syntax, the word NULL, a dollar quote, newlines, non-ASCII. */
const AWKWARD = [
  "it's",
  'back\\slash \\\\ and \\"',
  '{braced, "quoted"}',
  'NULL',
  '',
  ' leading and trailing ',
  '$$ dollar $tag$',
  'line\nbreak\ttab',
  'ünïcödé ✓ 😀',
  "E'not an escape'",
];

const ROUND_TRIP = `select cast($1 as text) as t, cast($2 as text[]) as a, cast($3 as bigint) as b, cast($4 as jsonb) as j,
  cast($5 as boolean) as f, cast($6 as integer) as i, cast($7 as text) as n -- batch-connection test`;

for (const kind of kinds) {
  describe(`BatchConnection.runBatch on ${kind}`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openTestDatabase(kind, { poolMax: 1 });
      await sql`create table batch_probe (id integer primary key, note text not null)`.execute(database.db);
    });
    afterAll(async () => {
      await database?.close();
    });

    const part = (query: { compile: (db: TestDatabase['db']) => BatchPart }): BatchPart => query.compile(database.db);
    const onConnection = <T>(work: (conn: BatchConnection) => Promise<T>): Promise<T> => withBatchConnection(database.db, work);

    it('carries every value exactly as a bound parameter would', async () => {
      for (const text of AWKWARD) {
        const values = [text, [text, null, 'plain', text], '9007199254740993', { text, nested: [text, 1, null] }, true, -7, null];
        const bound = await database.db.executeQuery(CompiledQuery.raw(ROUND_TRIP, values));
        const batched = await onConnection((conn) => conn.runBatch([rawPart('select 1'), { sql: ROUND_TRIP, parameters: values }]));
        expect(batched.rows, JSON.stringify(text)).toEqual(bound.rows);
        expect((batched.rows[0] as { t: string }).t).toBe(text);
        expect((batched.rows[0] as { a: string[] }).a).toEqual([text, null, 'plain', text]);
      }
    });

    it('carries long values exactly too (a driver may send them bound, on their own), in order with the statements around them', async () => {
      const long = AWKWARD.join('|').repeat(400);
      const many = Array.from({ length: 500 }, (_, i) => AWKWARD[i % AWKWARD.length]!);
      const values = [long, many, '1', { long }, false, 1, long];
      const bound = await database.db.executeQuery(CompiledQuery.raw(ROUND_TRIP, values));
      await onConnection(async (conn) => {
        const { rows } = await conn.runBatch([
          rawPart('begin'),
          part(sql`insert into batch_probe (id, note) values (${20}, ${long})`),
          { sql: ROUND_TRIP, parameters: values },
        ]);
        expect(rows).toEqual(bound.rows);
        expect((rows[0] as { t: string }).t).toBe(long);
        expect((rows[0] as { a: string[] }).a).toEqual(many);
        // The statement before the long ones ran first, in the same transaction.
        expect((await conn.runBatch<{ note: string }>([part(sql`select note from batch_probe where id = ${20}`)])).rows).toEqual([{ note: long }]);
        await conn.executeQuery(CompiledQuery.raw('rollback'));
      });
    });

    it("answers with the last statement's rows, after running every statement in order", async () => {
      await onConnection(async (conn) => {
        const { rows } = await conn.runBatch([
            rawPart('begin'),
            part(sql`insert into batch_probe (id, note) values (${1}, ${'first'})`),
            part(sql`insert into batch_probe (id, note) values (${2}, ${"second's"})`),
            part(sql`select id, note from batch_probe where id >= ${1} order by id`),
          ]);
        expect(rows).toEqual([
          { id: 1, note: 'first' },
          { id: 2, note: "second's" },
        ]);
        await conn.executeQuery(CompiledQuery.raw('rollback'));
      });
    });

    it('answers with the rows of the part it is asked for, the parts after it run too (a read that travels with COMMIT)', async () => {
      const long = AWKWARD.join('|').repeat(400); // a part a driver may send on its own, bound
      await onConnection(async (conn) => {
        const parts = [
          rawPart('begin'),
          part(sql`insert into batch_probe (id, note) values (${30}, ${'read, then committed'})`),
          part(sql`select id, note from batch_probe where id = ${30}`),
          part(sql`select length(${long}::text) as n`),
          part(sql`select ${'after'}::text as a`),
          rawPart('commit'),
        ];
        expect((await conn.runBatch(parts.slice(0, 3).concat(parts.slice(5)), 2)).rows).toEqual([{ id: 30, note: 'read, then committed' }]);
        expect((await conn.runBatch([rawPart('select 1 as one'), parts[3]!, parts[4]!], 1)).rows).toEqual([{ n: [...long].length }]); // characters, not UTF-16 units
        expect((await conn.runBatch([rawPart('select 1 as one'), parts[3]!, parts[4]!], 2)).rows).toEqual([{ a: 'after' }]);
        expect((await conn.runBatch([parts[4]!, parts[3]!, rawPart('select 1 as one')], 0)).rows).toEqual([{ a: 'after' }]);
        await expect(conn.runBatch([rawPart('select 1')], 1)).rejects.toThrow(/no part 1/);
      });
      // The COMMIT after the answered part ran: the row is there for another connection.
      const { rows } = await sql<{ note: string }>`select note from batch_probe where id = 30`.execute(database.db);
      expect(rows).toEqual([{ note: 'read, then committed' }]);
      await sql`delete from batch_probe where id = 30`.execute(database.db);
    });

    it('a failing statement fails the batch, the ones after it do not run, and a rollback leaves nothing', async () => {
      await onConnection(async (conn) => {
        await expect(
          conn.runBatch([
              rawPart('begin'),
              part(sql`insert into batch_probe (id, note) values (${10}, ${'kept out'})`),
              part(sql`insert into batch_probe (id, note) values (${10}, ${'duplicate key'})`),
              part(sql`insert into batch_probe (id, note) values (${11}, ${'never run'})`),
            ]),
        ).rejects.toThrow(/duplicate key/);
        await conn.executeQuery(CompiledQuery.raw('rollback'));
      });
      const { rows } = await sql<{ id: number }>`select id from batch_probe`.execute(database.db);
      expect(rows).toEqual([]);
    });

    if (kind === 'postgres') {
      it('prepares each parameterized statement once per connection, batched or not, under names of that connection', async () => {
        const batched = 'select cast($1 as text) as t -- batch-connection prepared test';
        const single = 'select cast($1 as integer) + 1 as n -- batch-connection single test';
        await onConnection(async (conn) => {
          for (const value of ['one', 'two', "th'ree"]) {
            expect((await conn.runBatch([{ sql: batched, parameters: [value] }])).rows).toEqual([{ t: value }]);
            expect((await conn.executeQuery(CompiledQuery.raw(single, [value.length]))).rows).toEqual([{ n: value.length + 1 }]);
          }
          const { rows } = await conn.executeQuery<{ name: string; statement: string }>(
            CompiledQuery.raw("select name, statement from pg_prepared_statements where statement like '%batch-connection % test'"),
          );
          expect(rows).toHaveLength(2);
          expect(rows.find((r) => r.statement === single)?.name).toMatch(/^calsync_\d+$/);
          const prepared = rows.find((r) => r.statement !== single)!;
          expect(prepared.name).toMatch(/^calsync_b\d+$/);
          expect(prepared.statement).toBe(`prepare ${prepared.name} as ${batched}`);
        });
      });

      it('a statement PostgreSQL refuses to prepare leaves no name behind, and the next one prepares', async () => {
        await onConnection(async (conn) => {
          await expect(conn.runBatch([{ sql: 'select cast($1 as text) from no_such_table', parameters: ['x'] }])).rejects.toThrow(/no_such_table/);
          expect((await conn.runBatch([{ sql: 'select cast($1 as text) as t -- after a refused one', parameters: ['y'] }])).rows).toEqual([{ t: 'y' }]);
        });
      });
    }
  });
}
