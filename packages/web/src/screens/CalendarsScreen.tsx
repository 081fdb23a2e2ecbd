import { useId, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import type { ImportIcsResult } from '@calsync/client';
import { client } from '../client.js';
import { calendarBundle, confirmAndDelete } from '../deletion.js';
import { errorMessage } from '../errors.js';
import { useOnline, useRecords } from '../hooks.js';
import type { CalendarRecord } from '../records.js';
import { DEFAULT_COLOR } from '../recurrence.js';

/** What an import did, in words. */
function importSummary(r: ImportIcsResult): string {
  const parts = [`${r.created} added`, `${r.updated} updated`, `${r.unchanged} already here`];
  return `Imported: ${parts.join(', ')}.${r.skipped.length > 0 ? ` Not imported: ${r.skipped.map((s) => s.reason).join('; ')}.` : ''}`;
}

/** "Import .ics": a file from another calendar app into one of the user's calendars (idempotent: importing it again adds nothing). */
function ImportIcs({ calendars }: { calendars: readonly CalendarRecord[] }) {
  const id = useId();
  const file = useRef<HTMLInputElement>(null);
  const fallback = calendars.find((c) => c.isDefault)?.uid ?? calendars[0]?.uid ?? '';
  const [target, setTarget] = useState('');
  const [message, setMessage] = useState('');
  const chosen = calendars.some((c) => c.uid === target) ? target : fallback;
  const read = async (e: ChangeEvent<HTMLInputElement>): Promise<void> => {
    const picked = e.target.files?.[0];
    e.target.value = '';
    if (!picked || !chosen) return;
    try {
      setMessage(importSummary(await client.importIcs(await picked.text(), { calendarUid: chosen })));
    } catch (err) {
      setMessage(`${picked.name} could not be imported: ${errorMessage(err)}`);
    }
  };
  return (
    <div className="inline-form" role="group" aria-label="Import">
      <label htmlFor={`${id}-target`}>Import into</label>
      <select id={`${id}-target`} value={chosen} onChange={(e) => setTarget(e.target.value)}>
        {calendars.map((c) => (
          <option key={c.uid} value={c.uid}>
            {c.name}
          </option>
        ))}
      </select>
      <button type="button" className="secondary" onClick={() => file.current?.click()} disabled={!chosen}>
        Import .ics
      </button>
      <input ref={file} type="file" accept=".ics,text/calendar" className="visually-hidden" tabIndex={-1} aria-label="iCalendar file to import" onChange={(e) => void read(e)} />
      {message && (
        <p role="status" className="import-result">
          {message}
        </p>
      )}
    </div>
  );
}

/** Calendars: create, rename, colour, make default, delete (which deletes its events too). */
export function CalendarsScreen() {
  const calendars = useRecords('calendars');
  const [name, setName] = useState('');
  const [color, setColor] = useState('#2e7d32');
  const id = useId();
  const create = (e: FormEvent): void => {
    e.preventDefault();
    if (!name.trim()) return;
    void client.calendars.put({ name: name.trim(), color });
    setName('');
  };
  return (
    <section aria-labelledby="calendars-title">
      <h1 id="calendars-title">Calendars</h1>
      <form onSubmit={create} className="inline-form" aria-label="New calendar">
        <label htmlFor={`${id}-name`}>Calendar name</label>
        <input id={`${id}-name`} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        <label htmlFor={`${id}-color`}>Colour</label>
        <input id={`${id}-color`} type="color" value={color} onChange={(e) => setColor(e.target.value)} />
        <button type="submit">Add calendar</button>
      </form>
      <ImportIcs calendars={calendars} />
      <ul className="plain-list">
        {[...calendars]
          .sort((a, b) => Number(b.isDefault ?? false) - Number(a.isDefault ?? false) || a.name.localeCompare(b.name))
          .map((c) => (
            <CalendarRow key={c.uid} calendar={c} />
          ))}
      </ul>
    </section>
  );
}

function CalendarRow({ calendar }: { calendar: CalendarRecord }) {
  const online = useOnline();
  const [name, setName] = useState(calendar.name);
  const [feed, setFeed] = useState<{ id: number; url: string } | null>(null);
  const [feedError, setFeedError] = useState('');
  const id = useId();
  const share = async (): Promise<void> => {
    try {
      const made = await client.feeds.create(calendar.uid);
      setFeed({ id: made.id, url: made.url });
      setFeedError('');
    } catch (err) {
      setFeedError(online ? errorMessage(err) : 'A subscription link needs the network.');
    }
  };
  const stopSharing = async (): Promise<void> => {
    if (feed === null) return;
    try {
      await client.feeds.remove(feed.id);
      setFeed(null);
    } catch (err) {
      setFeedError(errorMessage(err));
    }
  };
  const rename = (e: FormEvent): void => {
    e.preventDefault();
    if (name.trim() && name.trim() !== calendar.name) void client.calendars.put({ uid: calendar.uid, name: name.trim() });
  };
  return (
    <li>
      <form onSubmit={rename} className="calendar-row" aria-label={`Calendar ${calendar.name}`}>
        <input
          type="color"
          aria-label={`Colour of ${calendar.name}`}
          value={calendar.color ?? DEFAULT_COLOR}
          onChange={(e) => void client.calendars.put({ uid: calendar.uid, color: e.target.value })}
        />
        <label htmlFor={`${id}-name`} className="visually-hidden">
          Name of {calendar.name}
        </label>
        <input id={`${id}-name`} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        <button type="submit" className="secondary small" aria-label={`Rename ${calendar.name}`}>
          Rename
        </button>
        {calendar.isDefault ? (
          <span className="badge">Default</span>
        ) : (
          <button type="button" className="secondary small" onClick={() => void client.calendars.put({ uid: calendar.uid, isDefault: true })} aria-label={`Make default: ${calendar.name}`}>
            Make default
          </button>
        )}
        <button type="button" className="secondary small" onClick={() => void share()} aria-label={`Subscription link of ${calendar.name}`}>
          Subscription link
        </button>
        {!calendar.isDefault && (
          <button type="button" className="danger small" onClick={() => void confirmAndDelete({ noun: 'calendar', name: calendar.name, main: 'calendars', bundle: calendarBundle(calendar.uid) }, () => client.calendars.remove(calendar.uid))} aria-label={`Delete calendar ${calendar.name}`}>
            Delete
          </button>
        )}
      </form>
      {feed !== null && (
        <div className="feed-link">
          <label htmlFor={`${id}-feed`}>Subscription link of {calendar.name} (read-only; anyone with the link can see this calendar)</label>
          <input id={`${id}-feed`} readOnly value={feed.url} onFocus={(e) => e.target.select()} />
          <button type="button" className="secondary small" onClick={() => void navigator.clipboard?.writeText(feed.url)}>
            Copy
          </button>
          <button type="button" className="danger small" onClick={() => void stopSharing()}>
            Stop sharing
          </button>
        </div>
      )}
      {feedError && (
        <p role="alert" className="error">
          {feedError}
        </p>
      )}
    </li>
  );
}
