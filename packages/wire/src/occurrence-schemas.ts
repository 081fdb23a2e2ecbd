import { OCCURRENCE_LIMIT, OCCURRENCE_MAX_WINDOW_DAYS, UID_PATTERN } from '@calsync/domain/rules';
import { Type } from '@sinclair/typebox';

/** An occurrence's time: an instant (timed) or a floating date (all-day). */
const occurrenceTime = (what: string) =>
  Type.String({ description: `${what}: an instant (UTC, toISOString form), or a date YYYY-MM-DD for an all-day occurrence` });

/** Query of GET /api/occurrences. */
export const occurrencesQuerySchema = Type.Object({
  from: Type.String({ description: 'start of the window, an ISO 8601 instant (inclusive)' }),
  to: Type.String({ description: `end of the window, an ISO 8601 instant (exclusive); at most ${OCCURRENCE_MAX_WINDOW_DAYS} days after from` }),
  tz: Type.Optional(Type.String({ description: "the viewer's IANA time zone, where all-day dates are placed for the overlap test (default UTC)" })),
  calendarUid: Type.Optional(Type.String({ pattern: UID_PATTERN.source, description: 'only this calendar' })),
});

/** One occurrence of an event in a window (docs/protocol.md, "Occurrences"). */
export const occurrenceSchema = Type.Object(
  {
    eventUid: Type.String({ description: "the record to open: the override's uid for an overridden occurrence" }),
    seriesUid: Type.Union([Type.String(), Type.Null()], { description: 'the series; null for a single event' }),
    calendarUid: Type.String(),
    title: Type.String(),
    start: occurrenceTime('start'),
    end: occurrenceTime('end (exclusive)'),
    allDay: Type.Boolean(),
    timezone: Type.Union([Type.String(), Type.Null()], { description: 'the zone whose wall-clock time the event keeps; null for all-day' }),
    originalStart: Type.Union([Type.String(), Type.Null()], { description: "which occurrence of the series this is (RECURRENCE-ID); null for a single event" }),
    overridden: Type.Boolean({ description: 'an override replaces this occurrence of the series' }),
  },
  { title: 'Occurrence' },
);

/** `data` of GET /api/occurrences. */
export const occurrencePageSchema = Type.Object(
  {
    occurrences: Type.Array(occurrenceSchema, { description: `ordered by start, then eventUid; at most ${OCCURRENCE_LIMIT}` }),
    truncated: Type.Boolean({ description: `more than ${OCCURRENCE_LIMIT} occurrences overlap the window: ask for a shorter one` }),
  },
  { title: 'OccurrencePage' },
);
