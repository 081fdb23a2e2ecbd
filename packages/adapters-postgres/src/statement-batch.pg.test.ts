import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceDatabaseKinds, openTestDatabase, type TestDatabase } from '../test-support/index.js';
import { batchQuery, rawPart, type BatchPart } from './statement-batch.js';

const kinds = announceDatabaseKinds('statement-batch.pg.test.ts');

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
  cast($5 as boolean) as f, cast($6 as integer) as i, cast($7 as text) as n -- statement-batch test`;

for (const kind of kinds) {
  describe(`StatementBatch on ${kind}`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openTestDatabase(kind, { poolMax: 1 });
      await sql`create table batch_probe (id integer primary key, note text not null)`.execute(database.db);
    });
    afterAll(async () => {
      await database?.close();
    });

    const part = (query: { compile: (db: TestDatabase['db']) => BatchPart }): BatchPart => query.compile(database.db);

    it('carries every value exactly as a bound parameter would', async () => {
      for (const text of AWKWARD) {
        const values = [text, [text, null, 'plain', text], '9007199254740993', { text, nested: [text, 1, null] }, true, -7, null];
        const bound = await database.db.executeQuery(CompiledQuery.raw(ROUND_TRIP, values));
        const batched = await database.db.executeQuery(batchQuery([rawPart('select 1'), { sql: ROUND_TRIP, parameters: values }]));
        expect(batched.rows, JSON.stringify(text)).toEqual(bound.rows);
        expect((batched.rows[0] as { t: string }).t).toBe(text);
        expect((batched.rows[0] as { a: string[] }).a).toEqual([text, null, 'plain', text]);
      }
    });

    it("answers with the last statement's rows, after running every statement in order", async () => {
      await database.db.connection().execute(async (conn) => {
        const { rows } = await conn.executeQuery(
          batchQuery([
            rawPart('begin'),
            part(sql`insert into batch_probe (id, note) values (${1}, ${'first'})`),
            part(sql`insert into batch_probe (id, note) values (${2}, ${"second's"})`),
            part(sql`select id, note from batch_probe where id >= ${1} order by id`),
          ]),
        );
        expect(rows).toEqual([
          { id: 1, note: 'first' },
          { id: 2, note: "second's" },
        ]);
        await conn.executeQuery(CompiledQuery.raw('rollback'));
      });
    });

    it('a failing statement fails the batch, the ones after it do not run, and a rollback leaves nothing', async () => {
      await database.db.connection().execute(async (conn) => {
        await expect(
          conn.executeQuery(
            batchQuery([
              rawPart('begin'),
              part(sql`insert into batch_probe (id, note) values (${10}, ${'kept out'})`),
              part(sql`insert into batch_probe (id, note) values (${10}, ${'duplicate key'})`),
              part(sql`insert into batch_probe (id, note) values (${11}, ${'never run'})`),
            ]),
          ),
        ).rejects.toThrow(/duplicate key/);
        await conn.executeQuery(CompiledQuery.raw('rollback'));
      });
      const { rows } = await sql<{ id: number }>`select id from batch_probe`.execute(database.db);
      expect(rows).toEqual([]);
    });

    if (kind === 'postgres') {
      it('runs parameterized statements as statements prepared once per connection', async () => {
        const text = 'select cast($1 as text) as t -- statement-batch prepared test';
        await database.db.connection().execute(async (conn) => {
          for (const value of ['one', 'two', "th'ree"]) {
            const { rows } = await conn.executeQuery(batchQuery([{ sql: text, parameters: [value] }]));
            expect(rows).toEqual([{ t: value }]);
          }
          const { rows } = await conn.executeQuery<{ name: string; statement: string }>(
            CompiledQuery.raw('select name, statement from pg_prepared_statements where statement like $1', ['%statement-batch prepared test']),
          );
          expect(rows).toHaveLength(1);
          expect(rows[0]!.name).toMatch(/^calsync_b\d+$/);
        });
      });
    }
  });
}
