import { describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../test-support/index.js';
import { PreparingClient, statementName } from './prepared-client.js';

const url = testDatabaseUrl() ?? undefined;

describe('statementName', () => {
  it('gives one text one stable name and different texts different names', () => {
    const a = statementName('select $1::int as a -- test a');
    const b = statementName('select $1::int as b -- test b');
    expect(a).toBeDefined();
    expect(statementName('select $1::int as a -- test a')).toBe(a);
    expect(b).not.toBe(a);
  });
});

describe.runIf(url)('PreparingClient', () => {
  it('prepares a parameterized text query once per connection and answers it like an unnamed one', async () => {
    const client = new PreparingClient({ connectionString: url });
    await client.connect();
    try {
      const text = 'select cast($1 as integer) + 1 as n -- prepared-client test';
      const first = await client.query(text, [1]);
      const second = await client.query(text, [41]);
      expect(first.rows).toEqual([{ n: 2 }]);
      expect(second.rows).toEqual([{ n: 42 }]);
      const prepared = await client.query('select statement from pg_prepared_statements');
      expect(prepared.rows.filter((r: { statement: string }) => r.statement === text)).toHaveLength(1);
      // Queries without parameters stay unnamed (multi-statement text must keep working).
      await client.query('select 1; select 2');
      expect((await client.query('select count(*)::int as c from pg_prepared_statements')).rows[0]).toEqual({ c: 1 });
    } finally {
      await client.end();
    }
  });
});

describe.runIf(url)('PreparingClient multi-statement text', () => {
  it('answers with the last statement result', async () => {
    const client = new PreparingClient({ connectionString: url });
    await client.connect();
    try {
      const result = await client.query('select 1 as a; select 2 as b', []);
      expect(result.rows).toEqual([{ b: 2 }]);
    } finally {
      await client.end();
    }
  });
});
