import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pushItemArb, SMALL_UID_POOL, propertyRuns } from '@calsync/testkit';
import { RECORD_TYPES, type RecordType } from '../records/types.js';
import { canonicalJson, checkPushItem } from './fingerprint.js';
import type { PushItem } from './types.js';

const RUNS = propertyRuns();

describe('push item fingerprints', () => {
  it('stay the hashes stored receipts hold (a changed text would miss every receipt of a retried push)', () => {
    const items: [RecordType, PushItem][] = [
      ['events', { uid: 'e1', op: 'upsert', baseVersion: null, fields: { title: 'T "quoted" \\ é', calendarUid: 'c', startTime: '2026-01-01T00:00:00+01:00', endTime: '2026-01-01T00:30:00.000Z', allDay: false, description: null } }],
      ['tasks', { uid: 't1', op: 'upsert', baseVersion: '42', fields: { priority: 3, title: 'x', createdAt: 'ignored' } }],
      ['calendars', { uid: 'c1', op: 'delete', baseVersion: '7', fields: { name: 'n' } }],
      ['reminders', { uid: 'r1', op: 'upsert', baseVersion: undefined as never, fields: { eventUid: 'e1', minutesBefore: 0 } }],
    ];
    expect(items.map(([type, item]) => checkPushItem(type, item).fingerprint)).toEqual([
      '0bdba47c09ae22648c1a7d4607186f460f34cd1997ce213c20aabd23079163d3',
      'e5b1324e854387c63ba88c477cc0b5e0477f138156b3d6b085439f0f17fe5041',
      '17dea4bbe6b09221e44be0062153556ec83749048044db54f2d19a5fb7d37226',
      'e528a327bf3c96019a7e4b22fa2d4c32ae2905d722f217f7e37070925f6cdc19',
    ]);
  });

  it('are sha256 of the canonical JSON of op, baseVersion and the validated fields, for any item', () => {
    const item = fc.constantFrom(...RECORD_TYPES).chain((type) => pushItemArb(type, SMALL_UID_POOL[type], SMALL_UID_POOL, ['1', '2']).map((i) => [type, i] as const));
    fc.assert(
      fc.property(item, ([type, pushed]) => {
        const { fingerprint, patch } = checkPushItem(type, pushed);
        if (patch !== null && !patch.ok) {
          expect(fingerprint).toBeNull();
          return;
        }
        const text = canonicalJson({ op: pushed.op, baseVersion: pushed.baseVersion, fields: patch === null ? {} : patch.value });
        expect(fingerprint).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
      }),
      { numRuns: 500 * RUNS },
    );
  });
});
