import type { FieldValues } from '../records/types.js';

/**
 * One occurrence of an event in a window (docs/protocol.md, "Occurrences"): a single event, one
 * instance of a series, or an override that replaces one. Timed occurrences have instants,
 * all-day ones floating dates (end exclusive).
 */
export interface Occurrence {
  /** The record to open: the override's uid for an overridden occurrence, else the event's. */
  readonly eventUid: string;
  /** The series this occurrence belongs to; null for a single event. */
  readonly seriesUid: string | null;
  readonly calendarUid: string;
  readonly title: string;
  readonly start: string;
  readonly end: string;
  readonly allDay: boolean;
  /** The zone whose wall clock the event keeps (event, else calendar, else UTC); null for all-day. */
  readonly timezone: string | null;
  /** Which occurrence of the series this is (RECURRENCE-ID); null for a single event. */
  readonly originalStart: string | null;
  /** True when an override replaces the series' occurrence. */
  readonly overridden: boolean;
}

/** The event fields the expander reads: all that a store's window read has to return. */
export const OCCURRENCE_SOURCE_FIELDS = ['calendarUid', 'title', 'startTime', 'endTime', 'allDay', 'timezone', 'rrule', 'exdate', 'recurringEventUid', 'originalStartTime'] as const;

/** A live event as the expander reads it (a stored row, or a record in a client's store): `OCCURRENCE_SOURCE_FIELDS` at least. */
export interface EventSource {
  readonly uid: string;
  readonly fields: FieldValues;
}

/** A window of time and the view it is seen from. */
export interface OccurrenceWindow {
  /** Start of the window (instant, inclusive). */
  readonly from: string;
  /** End of the window (instant, exclusive). */
  readonly to: string;
  /** The viewer's zone: places all-day dates for the overlap test (default UTC). */
  readonly tz?: string;
  /** Only occurrences in these calendars (all when absent). */
  readonly calendarUids?: readonly string[];
  /** At most this many occurrences (default `OCCURRENCE_LIMIT`). */
  readonly limit?: number;
}

/** The answer: occurrences ordered by start, then eventUid; `truncated` when more overlapped the window than `limit`. */
export interface OccurrencePage {
  readonly occurrences: Occurrence[];
  readonly truncated: boolean;
}

/** Most occurrences one query returns. */
export const OCCURRENCE_LIMIT = 10_000;

/** Longest window one query may ask for, in days. */
export const OCCURRENCE_MAX_WINDOW_DAYS = 366;
