import { useId, useState, type FormEvent } from 'react';
import { client } from '../client.js';
import { useRecords } from '../hooks.js';
import type { CalendarRecord } from '../records.js';
import { DEFAULT_COLOR } from '../recurrence.js';

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
  const [name, setName] = useState(calendar.name);
  const id = useId();
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
          <button type="button" className="secondary small" onClick={() => void client.calendars.put({ uid: calendar.uid, isDefault: true })} aria-label={`Make ${calendar.name} the default`}>
            Make default
          </button>
        )}
        {!calendar.isDefault && (
          <button type="button" className="danger small" onClick={() => void client.calendars.remove(calendar.uid)} aria-label={`Delete calendar ${calendar.name}`}>
            Delete
          </button>
        )}
      </form>
    </li>
  );
}
