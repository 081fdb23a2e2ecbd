import { describe, expect, it } from 'vitest';
import { CursorCodec, SyncService, type ItemResult, type PushChangeset, type PushItem, type RecordType } from '@calsync/domain';
import { FixedClock } from '../clocks.js';
import type { StoreHarness } from './fixtures.js';

const up = (uid: string, fields: Record<string, unknown>, baseVersion: string | null = null): PushItem => ({ uid, op: 'upsert', baseVersion, fields });
const del = (uid: string, baseVersion: string | null): PushItem => ({ uid, op: 'delete', baseVersion, fields: {} });
/** The version a result reports (null for an error). */
const versionOf = (result: ItemResult | undefined): string | null => (result !== undefined && 'version' in result ? result.version : null);

/**
 * Series and overrides through the sync engine on the store under test: an override is an ordinary
 * synced record (versions, conflicts, deletes, restore), the series' delete cascades to it, and two
 * devices editing two occurrences never conflict.
 */
export function seriesCases(harness: () => StoreHarness): void {
  describe('series and overrides (through SyncService)', () => {
    const setup = async () => {
      const { store, createUser } = harness();
      const user = await createUser();
      const sync = new SyncService({ store, clock: new FixedClock('2026-01-01T00:00:00.000Z'), cursorCodec: new CursorCodec('series-cases') });
      const push = async (type: RecordType, ...items: PushItem[]) => (await sync.push(user, { [type]: items } as PushChangeset))[type];
      await push('calendars', up('cal', { name: 'Home', timezone: 'Europe/Berlin' }));
      // Weekly on Mondays at 09:00 Berlin, from 5 January 2026.
      const [series] = await push('events', up('standup', { calendarUid: 'cal', title: 'Stand-up', startTime: '2026-01-05T08:00:00.000Z', endTime: '2026-01-05T08:15:00.000Z', rrule: 'FREQ=WEEKLY;COUNT=10' }));
      const month = (from: string, to: string) => sync.occurrences(user, { from, to, tz: 'Europe/Berlin' });
      return { sync, user, push, series: series!, month };
    };
    const override = (uid: string, original: string, extra: Record<string, unknown> = {}) =>
      up(uid, { calendarUid: 'cal', title: 'Moved', recurringEventUid: 'standup', originalStartTime: original, startTime: '2026-01-13T14:00:00.000Z', endTime: '2026-01-13T14:15:00.000Z', ...extra });

    it('an override is created, edited, conflicts, is deleted and restored like any record', async () => {
      const { sync, user, push, month } = await setup();
      const [created] = await push('events', override('standup-0112', '2026-01-12T08:00:00.000Z'));
      expect(created?.status).toBe('created');
      let shown = (await month('2026-01-12T00:00:00Z', '2026-01-19T00:00:00Z')).occurrences;
      expect(shown.map((o) => [o.eventUid, o.start, o.originalStart, o.overridden])).toEqual([
        ['standup-0112', '2026-01-13T14:00:00.000Z', '2026-01-12T08:00:00.000Z', true],
      ]);
      const [edited] = await push('events', up('standup-0112', { title: 'Moved again' }, versionOf(created)));
      expect(edited?.status).toBe('updated');
      const [stale] = await push('events', up('standup-0112', { title: 'Stale copy' }, versionOf(created)));
      expect(stale?.status).toBe('conflict');
      const conflictId = stale !== undefined && 'conflictId' in stale ? (stale.conflictId ?? -1) : -1;
      const [gone] = await push('events', del('standup-0112', versionOf(stale)));
      expect(gone?.status).toBe('deleted');
      shown = (await month('2026-01-12T00:00:00Z', '2026-01-19T00:00:00Z')).occurrences;
      expect(shown.map((o) => [o.eventUid, o.start, o.overridden])).toEqual([['standup', '2026-01-12T08:00:00.000Z', false]]);
      // The stale edit won its conflict; restoring the loser brings back the edit it replaced.
      await sync.resolveConflict(user, conflictId, 'restore');
      shown = (await month('2026-01-12T00:00:00Z', '2026-01-19T00:00:00Z')).occurrences;
      expect(shown.map((o) => [o.eventUid, o.title])).toEqual([['standup-0112', 'Moved again']]);
    });

    it('keeps an override\'s series and occurrence, and refuses rrule or exdate on it and a series not yet known', async () => {
      const { push } = await setup();
      const [created] = await push('events', override('standup-0119', '2026-01-19T08:00:00.000Z'));
      const [moved] = await push('events', up('standup-0119', { originalStartTime: '2026-01-26T08:00:00.000Z' }, versionOf(created)));
      expect(moved !== undefined && 'error' in moved ? moved.error.code : null).toBe('INVALID_FIELD');
      const [ruled] = await push('events', override('standup-x', '2026-01-26T08:00:00.000Z', { rrule: 'FREQ=DAILY' }));
      expect(ruled !== undefined && 'error' in ruled ? ruled.error.code : null).toBe('INVALID_FIELD');
      const [orphan] = await push('events', override('standup-y', '2026-01-26T08:00:00.000Z', { recurringEventUid: 'not-yet' }));
      expect(orphan !== undefined && 'error' in orphan ? [orphan.error.code, orphan.error.retryable] : null).toEqual(['UNKNOWN_REFERENCE', true]);
    });

    it('deleting the series tombstones its overrides, each with its own version', async () => {
      const { sync, user, push, series } = await setup();
      await push('events', override('standup-0112', '2026-01-12T08:00:00.000Z'), override('standup-0119', '2026-01-19T08:00:00.000Z'));
      const [deleted] = await push('events', del('standup', versionOf(series)));
      expect(deleted?.status).toBe('deleted');
      const pulled = await sync.pull(user, {});
      const overrides = pulled.events.filter((e) => e.recurringEventUid === 'standup');
      expect(overrides.map((e) => [e.uid, e.deleted !== null])).toEqual([['standup-0112', true], ['standup-0119', true]]);
      expect(new Set(overrides.map((e) => e.version)).size).toBe(2);
      expect((await sync.occurrences(user, { from: '2026-01-01T00:00:00Z', to: '2026-04-01T00:00:00Z' })).occurrences).toEqual([]);
    });

    it('two devices editing two different occurrences offline never conflict', async () => {
      const { sync, user, push } = await setup();
      const [a] = await push('events', override('standup-0112', '2026-01-12T08:00:00.000Z', { title: 'A moved it' }));
      const [b] = await push('events', override('standup-0126', '2026-01-26T08:00:00.000Z', { title: 'B renamed it', startTime: '2026-01-26T08:00:00.000Z', endTime: '2026-01-26T08:15:00.000Z' }));
      expect([a?.status, b?.status]).toEqual(['created', 'created']);
      expect((await sync.listConflicts(user, {})).conflicts).toEqual([]);
      const titles = (await sync.occurrences(user, { from: '2026-01-05T00:00:00Z', to: '2026-02-02T00:00:00Z' })).occurrences.map((o) => o.title);
      expect(titles).toEqual(['Stand-up', 'A moved it', 'Stand-up', 'B renamed it']);
    });
  });
}
