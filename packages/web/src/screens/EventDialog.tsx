import type { Occurrence, OccurrenceScope } from '@calsync/client';
import { useId, useState, type FormEvent } from 'react';
import { client } from '../client.js';
import { Dialog } from '../components/Dialog.js';
import { confirmAndDelete, eventBundle, whatGoesWith } from '../deletion.js';
import { errorMessage } from '../errors.js';
import { DATE_INPUT, endAfterStartMoved, fromLocalInput, localDate, toLocalInput, zoneTimeNote } from '../format.js';
import type { CalendarRecord, EventRecord } from '../records.js';
import { buildRrule, parseRepeat, viewerZone, weekdayOf, type Repeat } from '../recurrence.js';
import { RepeatEditor } from './RepeatEditor.js';

/** What the dialog edits: a new event over a time range, or one occurrence of an existing event (a single event is its own occurrence). */
export type EventDraft =
  | { kind: 'new'; start: Date; end: Date; allDay: boolean }
  | { kind: 'edit'; event: EventRecord; occurrence: Occurrence };

const DAY_MS = 86_400_000;

function defaultCalendarUid(calendars: readonly CalendarRecord[]): string {
  return (calendars.find((c) => c.isDefault) ?? calendars[0])?.uid ?? '';
}

/** The day before a `YYYY-MM-DD` date: an all-day event's exclusive end shown as its last day. */
function dayBefore(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10);
}

function dayAfter(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
}

/** The form's starting values: the occurrence's own times (not the series' first), dates for all-day. */
function initialTimes(draft: EventDraft): { start: string; end: string; allDay: boolean } {
  if (draft.kind === 'new') {
    if (draft.allDay) return { start: localDate(draft.start), end: localDate(new Date(draft.end.getTime() - DAY_MS)), allDay: true };
    return { start: toLocalInput(draft.start.toISOString()), end: toLocalInput(draft.end.toISOString()), allDay: false };
  }
  const o = draft.occurrence;
  if (o.allDay) return { start: o.start, end: dayBefore(o.end > o.start ? o.end : dayAfter(o.start)), allDay: true };
  return { start: toLocalInput(o.start), end: toLocalInput(o.end), allDay: false };
}

/**
 * Create or edit an event. An occurrence of a recurring event opens with its own date and asks
 * which occurrences a save or a delete applies to ("This event", "This and following events",
 * "All events"); the repeat rule belongs to the series, so it is edited with the latter two.
 */
export function EventDialog({ draft, calendars, onClose }: { draft: EventDraft; calendars: readonly CalendarRecord[]; onClose: () => void }) {
  const existing = draft.kind === 'edit' ? draft.event : null;
  const occurrence = draft.kind === 'edit' ? draft.occurrence : null;
  const seriesUid = occurrence?.seriesUid ?? null;
  const series = seriesUid === null ? null : (client.events.get(seriesUid) as EventRecord | undefined) ?? null;
  const times = initialTimes(draft);
  const [title, setTitle] = useState(existing?.title ?? '');
  // An occurrence is in its series' calendar (an override made before the series moved may still name the old one).
  const seriesCalendar = series?.calendarUid ?? existing?.calendarUid ?? defaultCalendarUid(calendars);
  const [calendarUid, setCalendarUid] = useState(seriesCalendar);
  const [start, setStart] = useState(times.start);
  const [end, setEnd] = useState(times.end);
  const [allDay, setAllDay] = useState(times.allDay);
  const zone = existing?.timezone ?? series?.timezone ?? viewerZone();
  const storedRule = series?.rrule ?? existing?.rrule ?? null;
  const [initialRepeat] = useState(() => parseRepeat(storedRule, zone));
  const [repeat, setRepeat] = useState<Repeat>(initialRepeat);
  const [scope, setScope] = useState<OccurrenceScope>('this');
  const [location, setLocation] = useState(existing?.location ?? '');
  const [description, setDescription] = useState(existing?.description ?? '');
  const [error, setError] = useState('');
  const id = useId();
  const repeatEditable = seriesUid === null || scope !== 'this';
  // One occurrence cannot leave its series' calendar: the calendar moves with "This and following" or "All events".
  const calendarEditable = repeatEditable;

  /** A form time as the record holds it: an instant, or a date for all-day; null while it is not valid. */
  const recordTime = (value: string): string | null => (allDay ? (DATE_INPUT.test(value) ? value : null) : fromLocalInput(value));

  /** The form's times as the record holds them: instants, or dates with an exclusive end. */
  const recordTimes = (): { startTime: string; endTime: string } | null => {
    const startTime = recordTime(start);
    const lastTime = recordTime(end);
    return startTime && lastTime ? { startTime, endTime: allDay ? dayAfter(lastTime) : lastTime } : null;
  };

  // The weekday a weekly rule without days repeats on: the start's, in the event's zone. An
  // occurrence moved by an override still holds its series' slot while its start is not changed.
  const seriesSlot = start === times.start && allDay === times.allDay ? occurrence?.originalStart : null;
  const startDay = weekdayOf(seriesSlot ?? recordTime(start), zone);

  const save = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    if (!title.trim()) return setError('Give the event a title.');
    if (!calendarUid) return setError('Choose a calendar.');
    const t = recordTimes();
    if (!t) return setError('Give a start and an end.');
    if (t.endTime < t.startTime) return setError('The end must not be before the start.');
    // A rule the user did not touch is saved as it was written (by this app or another client).
    const rrule = repeat === initialRepeat && allDay === times.allDay ? storedRule : buildRrule(repeat, { allDay, zone });
    const fields = {
      calendarUid,
      title: title.trim(),
      ...t,
      allDay,
      location: location.trim() || null,
      description: description.trim() || null,
    };
    try {
      if (existing === null) {
        await client.events.put({ ...fields, rrule, timezone: allDay ? null : zone });
      } else if (seriesUid !== null && occurrence !== null) {
        const before = initialTimes(draft);
        const patch: Record<string, string | boolean | null> = {};
        if (fields.title !== existing.title) patch.title = fields.title;
        if (fields.calendarUid !== seriesCalendar) patch.calendarUid = fields.calendarUid;
        if (fields.location !== (existing.location ?? null)) patch.location = fields.location;
        if (fields.description !== (existing.description ?? null)) patch.description = fields.description;
        if (start !== before.start || end !== before.end || allDay !== before.allDay) Object.assign(patch, t, { allDay });
        if (repeatEditable && rrule !== (series?.rrule ?? null)) patch.rrule = rrule;
        await client.events.editOccurrence(seriesUid, occurrence.originalStart ?? occurrence.start, patch, { scope });
      } else {
        await client.events.put({ uid: existing.uid, ...fields, rrule, ...(allDay ? {} : { timezone: existing.timezone ?? zone }) });
      }
      onClose();
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  const remove = async (): Promise<void> => {
    if (!existing) return;
    try {
      let deleted: boolean;
      if (seriesUid !== null && occurrence !== null) {
        const at = occurrence.originalStart ?? occurrence.start;
        const name = series?.title ?? existing.title;
        const bundle = eventBundle(seriesUid);
        const label = { this: `this occurrence of “${name}”`, following: `this and the following occurrences of “${name}”`, all: `the series “${name}” ${whatGoesWith(bundle, 'events')}`.trim() }[scope];
        deleted = await confirmAndDelete(
          { noun: 'series', name, main: 'events', bundle, label },
          () => client.events.removeOccurrence(seriesUid, at, { scope }),
        );
      } else {
        deleted = await confirmAndDelete({ noun: 'event', name: existing.title, main: 'events', bundle: eventBundle(existing.uid) }, () => client.events.remove(existing.uid));
      }
      if (deleted) onClose();
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  const note = !allDay && occurrence !== null ? zoneTimeNote(occurrence.start, occurrence.timezone, viewerZone()) : null;

  return (
    <Dialog title={existing ? 'Edit event' : 'New event'} onClose={onClose}>
      <form onSubmit={(e) => void save(e)} className="form-grid">
        {/* First, so the choice is seen before anything is changed (at 1280×800 it was below the fold, under the description). */}
        {seriesUid !== null && (
          <fieldset className="span-2 scope">
            <legend>Apply to</legend>
            {(
              [
                ['this', 'This event'],
                ['following', 'This and following events'],
                ['all', 'All events'],
              ] as const
            ).map(([value, label]) => (
              <label key={value} className="check">
                <input
                  type="radio"
                  name={`${id}-scope`}
                  value={value}
                  checked={scope === value}
                  onChange={() => {
                    setScope(value);
                    if (value === 'this') setCalendarUid(seriesCalendar);
                  }}
                />{' '}
                {label}
              </label>
            ))}
          </fieldset>
        )}
        <label htmlFor={`${id}-title`}>Title</label>
        <input id={`${id}-title`} required autoFocus value={title} onChange={(e) => setTitle(e.target.value)} />
        <label htmlFor={`${id}-calendar`}>Calendar</label>
        <select id={`${id}-calendar`} value={calendarUid} disabled={!calendarEditable} aria-describedby={calendarEditable ? undefined : `${id}-calendar-hint`} onChange={(e) => setCalendarUid(e.target.value)}>
          {calendars.map((c) => (
            <option key={c.uid} value={c.uid}>
              {c.name}
            </option>
          ))}
        </select>
        {!calendarEditable && (
          <p id={`${id}-calendar-hint`} className="span-2 hint">
            One occurrence stays in its series’ calendar. To move the event, choose “This and following events” or “All events”.
          </p>
        )}
        <label htmlFor={`${id}-start`}>Starts</label>
        <input
          id={`${id}-start`}
          type={allDay ? 'date' : 'datetime-local'}
          required
          value={start}
          onChange={(e) => {
            setEnd(endAfterStartMoved(start, end, e.target.value));
            setStart(e.target.value);
          }}
        />
        <label htmlFor={`${id}-end`}>Ends</label>
        <input id={`${id}-end`} type={allDay ? 'date' : 'datetime-local'} required value={end} onChange={(e) => setEnd(e.target.value)} />
        {note && <p className="span-2 hint">{note}</p>}
        <span />
        <label className="check">
          <input
            type="checkbox"
            checked={allDay}
            onChange={(e) => {
              const next = e.target.checked;
              setAllDay(next);
              setStart(next ? start.slice(0, 10) : `${start.slice(0, 10)}T09:00`);
              setEnd(next ? end.slice(0, 10) : `${end.slice(0, 10)}T10:00`);
            }}
          />{' '}
          All day
        </label>
        <RepeatEditor repeat={repeat} startDay={startDay} onChange={setRepeat} disabled={!repeatEditable} />
        <label htmlFor={`${id}-location`}>Location</label>
        <input id={`${id}-location`} value={location} onChange={(e) => setLocation(e.target.value)} />
        <label htmlFor={`${id}-description`}>Description</label>
        <textarea id={`${id}-description`} rows={3} value={description} onChange={(e) => setDescription(e.target.value)} />
        {error && (
          <p role="alert" className="error span-2">
            {error}
          </p>
        )}
        <div className="actions span-2">
          <button type="submit">Save</button>
          <button type="button" className="secondary" onClick={onClose}>
            Cancel
          </button>
          {existing && (
            <button type="button" className="danger" onClick={() => void remove()}>
              Delete
            </button>
          )}
        </div>
      </form>
    </Dialog>
  );
}
