import { describe, expect, it } from 'vitest';
import { pulledPage } from './postgres-unit-of-work.js';

const row = (version: string) => ({ version, wire: JSON.stringify({ version }) });

describe('pulledPage (a type of the pull statement, as one page)', () => {
  it('keeps the JSON of the first `wanted` rows by version, and tells that more follow', () => {
    const page = pulledPage(['9', '10', '11'].map(row), 2);
    expect(page).toEqual({ lastVersion: 10n, more: true, wire: ['{"version":"9"}', '{"version":"10"}'] });
  });

  it('orders rows that arrive out of version order by number, not by text', () => {
    const page = pulledPage(['100', '9', '10'].map(row), 5);
    expect(page.wire.map((t) => JSON.parse(t) as unknown)).toEqual([{ version: '9' }, { version: '10' }, { version: '100' }]);
    expect(page).toMatchObject({ lastVersion: 100n, more: false });
  });

  it('answers no rows and no last version when nothing is there, or nothing is wanted', () => {
    expect(pulledPage([], 10)).toEqual({ lastVersion: null, more: false, wire: [] });
    expect(pulledPage([row('5')], 0)).toEqual({ lastVersion: null, more: true, wire: [] });
  });
});
