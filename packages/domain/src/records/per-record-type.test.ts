import { describe, expect, it } from 'vitest';
import { perRecordType } from './per-record-type.js';
import { RECORD_TYPES } from './types.js';

describe('perRecordType', () => {
  it('has one entry per record type, in RECORD_TYPES order, each made once from its type', () => {
    const asked: string[] = [];
    const made = perRecordType((type) => {
      asked.push(type);
      return `${type}!`;
    });
    expect(Object.keys(made)).toEqual([...RECORD_TYPES]);
    expect(asked).toEqual([...RECORD_TYPES]);
    for (const type of RECORD_TYPES) expect(made[type]).toBe(`${type}!`);
  });
});
