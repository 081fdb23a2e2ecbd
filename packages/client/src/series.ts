import {
  checkOccurrenceWindow,
  expandOccurrences,
  planOccurrenceEdit,
  planOccurrenceRemoval,
  type OccurrencePage,
  type OccurrencePlan,
  type OccurrenceScope,
  type SeriesState,
} from '@calsync/domain/rules';
import type { FieldValues } from '@calsync/domain/rules';
import type { Collection } from './collection.js';
import type { LocalState } from './engine/local-state.js';
import type { EventFields, ReminderFields } from './records.js';

/** What `client.occurrences` is asked: a window, the viewer's zone (for all-day dates), and optionally some calendars. */
export interface OccurrencesQuery {
  /** Start of the window, an ISO 8601 instant. */
  readonly from: string;
  /** End of the window (exclusive), at most 366 days after `from`. */
  readonly to: string;
  /** The viewer's IANA zone (default UTC). */
  readonly tz?: string;
  readonly calendarUids?: readonly string[];
}

/** Options of an occurrence edit or removal. */
export interface OccurrenceOptions {
  /** `this` (default): only this occurrence; `following`: it and every later one; `all`: the whole series. */
  readonly scope?: OccurrenceScope;
}

/** One-occurrence edits of a series, beside the events collection. */
export interface OccurrenceOperations {
  /**
   * Edits the occurrence that starts (or started, before an earlier edit) at `occurrenceStart`, its
   * `originalStart` as `client.occurrences()` reports it, of the series `uid` (or of the series an
   * override `uid` belongs to). Returns the uid of the record that holds the occurrence afterwards.
   */
  editOccurrence(uid: string, occurrenceStart: string, patch: Partial<EventFields>, options?: OccurrenceOptions): Promise<string>;
  /** Removes the occurrence (`this`), it and the later ones (`following`) or the series (`all`). */
  removeOccurrence(uid: string, occurrenceStart: string, options?: OccurrenceOptions): Promise<void>;
}

/** The occurrences of the local events in a window, by the domain's one expander; works offline. */
export function localOccurrences(state: LocalState, query: OccurrencesQuery): OccurrencePage {
  checkOccurrenceWindow(query);
  const calendars = state.records.calendars;
  const zoneOf = (uid: string): string | null => {
    const zone = calendars.get(uid)?.fields.timezone;
    return typeof zone === 'string' ? zone : null;
  };
  return expandOccurrences(state.records.events.values(), zoneOf, query);
}

/** The series a uid names (itself, or the series of an override), with its overrides and its calendar's zone. */
function seriesOf(state: LocalState, uid: string): SeriesState {
  const events = state.records.events;
  const named = events.get(uid);
  if (named === undefined) throw new RangeError(`no event ${uid}`);
  const seriesUid = typeof named.fields.recurringEventUid === 'string' ? named.fields.recurringEventUid : uid;
  const series = events.get(seriesUid);
  if (series === undefined || typeof series.fields.rrule !== 'string') throw new RangeError(`event ${seriesUid} is not a recurring event`);
  const zone = state.records.calendars.get(String(series.fields.calendarUid))?.fields.timezone;
  const overrides = [...events.values()].filter((e) => e.fields.recurringEventUid === seriesUid).map((e) => ({ uid: e.uid, fields: e.fields }));
  const owners = new Set([seriesUid, ...overrides.map((o) => o.uid)]);
  return {
    series: { uid: series.uid, fields: series.fields },
    overrides,
    calendarZone: typeof zone === 'string' ? zone : null,
    reminders: [...state.records.reminders.values()].filter((r) => owners.has(String(r.fields.eventUid))).map((r) => ({ uid: r.uid, fields: r.fields })),
  };
}

/** The collections a plan writes through. */
interface PlanTargets {
  readonly events: Collection<EventFields>;
  readonly reminders: Collection<ReminderFields>;
}

/**
 * Carries out a plan: deletes first, then the event writes, then the reminders that follow them,
 * each through the outbox; last the overrides the server derives from those writes (a move re-keys
 * them in place), into this device's copy only: the pull brings the server's same result.
 */
async function apply(state: LocalState, { events, reminders }: PlanTargets, plan: OccurrencePlan): Promise<void> {
  for (const uid of plan.removes) await events.remove(uid);
  for (const put of plan.puts) await events.put({ ...(put.fields as Partial<EventFields>), uid: put.uid });
  for (const put of plan.reminders) await reminders.put({ ...(put.fields as Partial<ReminderFields>), uid: put.uid });
  const derived = (plan.derived ?? []).flatMap((d) => {
    const record = state.records.events.get(d.uid);
    return record === undefined ? [] : [{ ...record, fields: { ...record.fields, ...d.fields } }];
  });
  if (derived.length > 0) await state.commit({ putRecords: derived });
}

/** The occurrence operations over `state`, writing through `targets`; `newUid` names new series, overrides and reminders. */
export function occurrenceOperations(state: LocalState, targets: PlanTargets, newUid: () => string): OccurrenceOperations {
  return {
    async editOccurrence(uid, occurrenceStart, patch, options = {}) {
      const plan = planOccurrenceEdit(seriesOf(state, uid), occurrenceStart, patch as FieldValues, options.scope ?? 'this', newUid);
      await apply(state, targets, plan);
      return plan.target ?? uid;
    },
    async removeOccurrence(uid, occurrenceStart, options = {}) {
      await apply(state, targets, planOccurrenceRemoval(seriesOf(state, uid), occurrenceStart, options.scope ?? 'this'));
    },
  };
}
