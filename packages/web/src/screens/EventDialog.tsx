import { useId, useState, type FormEvent } from 'react';
import { client } from '../client.js';
import { Dialog } from '../components/Dialog.js';
import { errorMessage } from '../errors.js';
import { formatTime, fromLocalInput, toLocalInput } from '../format.js';
import type { CalendarRecord, EventRecord } from '../records.js';
import { REPEAT_CHOICES, withExdate } from '../recurrence.js';

/** What the dialog edits: a new event over a time range, or an existing one (maybe one occurrence of a series). */
export type EventDraft =
  | { kind: 'new'; start: Date; end: Date; allDay: boolean }
  | { kind: 'edit'; event: EventRecord; occurrenceStart: Date };

function defaultCalendarUid(calendars: readonly CalendarRecord[]): string {
  return (calendars.find((c) => c.isDefault) ?? calendars[0])?.uid ?? '';
}

/** Create or edit an event; for a series, delete one occurrence (adds an exdate) or the whole series. */
export function EventDialog({ draft, calendars, onClose }: { draft: EventDraft; calendars: readonly CalendarRecord[]; onClose: () => void }) {
  const existing = draft.kind === 'edit' ? draft.event : null;
  const [title, setTitle] = useState(existing?.title ?? '');
  const [calendarUid, setCalendarUid] = useState(existing?.calendarUid ?? defaultCalendarUid(calendars));
  const [start, setStart] = useState(toLocalInput(existing?.startTime ?? (draft.kind === 'new' ? draft.start.toISOString() : '')));
  const [end, setEnd] = useState(toLocalInput(existing?.endTime ?? (draft.kind === 'new' ? draft.end.toISOString() : '')));
  const [allDay, setAllDay] = useState(existing?.allDay ?? (draft.kind === 'new' ? draft.allDay : false));
  const [rrule, setRrule] = useState(existing?.rrule ?? '');
  const [location, setLocation] = useState(existing?.location ?? '');
  const [description, setDescription] = useState(existing?.description ?? '');
  const [error, setError] = useState('');
  const id = useId();
  const custom = rrule !== '' && !REPEAT_CHOICES.some((c) => c.value === rrule);

  const save = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const startTime = fromLocalInput(start);
    const endTime = fromLocalInput(end);
    if (!title.trim()) return setError('Give the event a title.');
    if (!calendarUid) return setError('Choose a calendar.');
    if (!startTime || !endTime) return setError('Give a start and an end.');
    if (endTime < startTime) return setError('The end must not be before the start.');
    const fields = {
      calendarUid,
      title: title.trim(),
      startTime,
      endTime,
      allDay,
      rrule: rrule || null,
      location: location.trim() || null,
      description: description.trim() || null,
    };
    try {
      await client.events.put(existing ? { uid: existing.uid, ...fields } : fields);
      onClose();
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  const removeSeries = async (): Promise<void> => {
    if (!existing) return;
    await client.events.remove(existing.uid);
    onClose();
  };
  const removeOccurrence = async (): Promise<void> => {
    if (!existing || draft.kind !== 'edit') return;
    await client.events.put({ uid: existing.uid, exdate: withExdate(existing.exdate, draft.occurrenceStart) });
    onClose();
  };

  return (
    <Dialog title={existing ? 'Edit event' : 'New event'} onClose={onClose}>
      <form onSubmit={(e) => void save(e)} className="form-grid">
        <label htmlFor={`${id}-title`}>Title</label>
        <input id={`${id}-title`} required autoFocus value={title} onChange={(e) => setTitle(e.target.value)} />
        <label htmlFor={`${id}-calendar`}>Calendar</label>
        <select id={`${id}-calendar`} value={calendarUid} onChange={(e) => setCalendarUid(e.target.value)}>
          {calendars.map((c) => (
            <option key={c.uid} value={c.uid}>
              {c.name}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-start`}>Starts</label>
        <input id={`${id}-start`} type="datetime-local" required value={start} onChange={(e) => setStart(e.target.value)} />
        <label htmlFor={`${id}-end`}>Ends</label>
        <input id={`${id}-end`} type="datetime-local" required value={end} onChange={(e) => setEnd(e.target.value)} />
        <span />
        <label className="check">
          <input type="checkbox" checked={allDay} onChange={(e) => setAllDay(e.target.checked)} /> All day
        </label>
        <label htmlFor={`${id}-repeat`}>Repeats</label>
        <select id={`${id}-repeat`} value={rrule} onChange={(e) => setRrule(e.target.value)}>
          {REPEAT_CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
          {custom && <option value={rrule}>Custom: {rrule}</option>}
        </select>
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
          {existing && existing.rrule && draft.kind === 'edit' && (
            <button type="button" className="danger" onClick={() => void removeOccurrence()}>
              Delete this event ({formatTime(draft.occurrenceStart)})
            </button>
          )}
          {existing && (
            <button type="button" className="danger" onClick={() => void removeSeries()}>
              {existing.rrule ? 'Delete all events in the series' : 'Delete'}
            </button>
          )}
        </div>
      </form>
    </Dialog>
  );
}
