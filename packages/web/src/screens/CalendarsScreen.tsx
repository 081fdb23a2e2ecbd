import { useId, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import type { ImportIcsResult, WireFeed } from '@calsync/client';
import { client } from '../client.js';
import { calendarBundle, confirmAndDelete } from '../deletion.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { errorMessage, saved } from '../errors.js';
import { formatTime } from '../format.js';
import { useOnline, useQuery, useRecords } from '../hooks.js';
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

/**
 * Calendars: create, rename, colour, make default, delete (which deletes its events too), and
 * share one read-only by a subscription link.
 */
export function CalendarsScreen() {
  const calendars = useRecords('calendars');
  const online = useOnline();
  // Which calendars are shared by link, from the server: a link's URL is never shown again, but
  // that it is live is (GET /api/feeds), after a reload too. Asked again when the network is back
  // and after each change this screen makes.
  const feeds = useQuery(`feeds ${online}`, () => client.feeds.list());
  const [name, setName] = useState('');
  const [color, setColor] = useState('#2e7d32');
  const [error, setError] = useState<unknown>(null);
  const id = useId();
  const create = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    if (!name.trim()) return;
    if (await saved(() => client.calendars.put({ name: name.trim(), color }), setError)) setName('');
  };
  return (
    <section aria-labelledby="calendars-title">
      <h1 id="calendars-title">Calendars</h1>
      <form onSubmit={(e) => void create(e)} className="inline-form" aria-label="New calendar">
        <label htmlFor={`${id}-name`}>Calendar name</label>
        <input id={`${id}-name`} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        <label htmlFor={`${id}-color`}>Colour</label>
        <input id={`${id}-color`} type="color" value={color} onChange={(e) => setColor(e.target.value)} />
        <button type="submit">Add calendar</button>
        {error !== null && <ErrorNote error={error} />}
      </form>
      <ImportIcs calendars={calendars} />
      <ul className="plain-list">
        {[...calendars]
          .sort((a, b) => Number(b.isDefault ?? false) - Number(a.isDefault ?? false) || a.name.localeCompare(b.name))
          .map((c) => (
            <CalendarRow key={c.uid} calendar={c} feeds={feeds.data} onFeedsChanged={feeds.refetch} />
          ))}
      </ul>
    </section>
  );
}

/** "Shared by link since …" (the oldest live link: the calendar has been shared since then). */
function sharedSince(links: readonly WireFeed[]): string {
  const since = links.reduce((oldest, f) => (f.createdAt < oldest ? f.createdAt : oldest), links[0]!.createdAt);
  return `Shared by ${links.length === 1 ? 'link' : `${links.length} links`} since ${formatTime(since)}`;
}

/** What a new link did to the `count` links before it: "The earlier link no longer works". */
function earlierLinksEnded(count: number): string {
  return `The earlier ${count === 1 ? 'link no longer works' : 'links no longer work'}`;
}

/**
 * One calendar: name, colour, default, delete, and its subscription link. The screen treats a
 * calendar as shared by one link: a new link ends the calendar's earlier ones (their URLs cannot be
 * shown again), and "Stop sharing" ends every link of it, however many the API made.
 */
function CalendarRow({ calendar, feeds, onFeedsChanged }: { calendar: CalendarRecord; feeds: readonly WireFeed[] | undefined; onFeedsChanged: () => void }) {
  const online = useOnline();
  // What is typed in the name box; until then (and after a rename) the box shows the calendar's
  // name as it is now, renamed by another device included, so Enter never sends an old name back.
  const [typed, setTyped] = useState<string | null>(null);
  const name = typed ?? calendar.name;
  const [renameError, setRenameError] = useState<unknown>(null);
  // The link made here, shown this once, and how many earlier links it replaced.
  const [made, setMade] = useState<{ url: string; replaced: number } | null>(null);
  // The feed list as it was when sharing stopped: until the server answers again, none of it is live.
  const [endedIn, setEndedIn] = useState<readonly WireFeed[] | undefined | null>(null);
  const [busy, setBusy] = useState(false);
  const [feedNote, setFeedNote] = useState('');
  const [feedError, setFeedError] = useState('');
  const id = useId();
  const links = feeds === undefined || feeds === endedIn ? [] : feeds.filter((f) => f.calendarUid === calendar.uid);
  const share = async (): Promise<void> => {
    setBusy(true);
    let replaced: number | null = null;
    try {
      // The earlier links end first: a failure leaves the calendar less shared, never an old link
      // live beside a new one (or a new one made but not shown).
      replaced = await client.feeds.removeAll(calendar.uid);
      const feed = await client.feeds.create(calendar.uid);
      setMade({ url: feed.url, replaced });
      setFeedNote('');
      setFeedError('');
    } catch (err) {
      const why = online ? errorMessage(err) : 'A subscription link needs the network.';
      const ended = replaced === null || replaced === 0 ? '' : `${earlierLinksEnded(replaced)}, but no new one could be made. `;
      setFeedError(`${ended}${why}`);
    } finally {
      setBusy(false);
      onFeedsChanged();
    }
  };
  const stopSharing = async (): Promise<void> => {
    setBusy(true);
    try {
      await client.feeds.removeAll(calendar.uid);
      setEndedIn(feeds);
      setMade(null);
      setFeedNote(`${calendar.name} is no longer shared: its links stopped working.`);
      setFeedError('');
    } catch (err) {
      setFeedError(online ? errorMessage(err) : 'Stopping sharing needs the network.');
    } finally {
      setBusy(false);
      onFeedsChanged();
    }
  };
  const rename = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const next = name.trim();
    const write = async (): Promise<void> => {
      if (next && next !== calendar.name) await client.calendars.put({ uid: calendar.uid, name: next });
    };
    if (await saved(write, setRenameError)) setTyped(null);
  };
  const stopButton = (
    <button type="button" className="danger small" disabled={busy} onClick={() => void stopSharing()} aria-label={`Stop sharing ${calendar.name}`}>
      Stop sharing
    </button>
  );
  return (
    <li>
      <form onSubmit={(e) => void rename(e)} className="calendar-row" aria-label={`Calendar ${calendar.name}`}>
        <input
          type="color"
          aria-label={`Colour of ${calendar.name}`}
          value={calendar.color ?? DEFAULT_COLOR}
          onChange={(e) => void client.calendars.put({ uid: calendar.uid, color: e.target.value })}
        />
        <label htmlFor={`${id}-name`} className="visually-hidden">
          Name of {calendar.name}
        </label>
        <input id={`${id}-name`} required maxLength={200} value={name} onChange={(e) => setTyped(e.target.value)} />
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
        {made === null && links.length === 0 && (
          <button type="button" className="secondary small" disabled={busy} onClick={() => void share()} aria-label={`Subscription link of ${calendar.name}`}>
            Subscription link
          </button>
        )}
        {!calendar.isDefault && (
          <button type="button" className="danger small" onClick={() => void confirmAndDelete({ noun: 'calendar', name: calendar.name, main: 'calendars', bundle: calendarBundle(calendar.uid) }, () => client.calendars.remove(calendar.uid))} aria-label={`Delete calendar ${calendar.name}`}>
            Delete
          </button>
        )}
      </form>
      {renameError !== null && <ErrorNote error={renameError} />}
      {made !== null ? (
        <div className="feed-link">
          <label htmlFor={`${id}-feed`}>Subscription link of {calendar.name} (read-only; anyone with the link can see this calendar)</label>
          <input id={`${id}-feed`} readOnly value={made.url} onFocus={(e) => e.target.select()} aria-describedby={`${id}-once`} />
          <button type="button" className="secondary small" onClick={() => void navigator.clipboard?.writeText(made.url)}>
            Copy
          </button>
          {stopButton}
          <p id={`${id}-once`} className="hint">
            Copy it now: it is shown only this once.{made.replaced > 0 && ` ${earlierLinksEnded(made.replaced)}.`}
          </p>
        </div>
      ) : (
        links.length > 0 && (
          <div className="feed-link">
            <p className="feed-state">{sharedSince(links)}</p>
            <button type="button" className="secondary small" disabled={busy} onClick={() => void share()} aria-label={`New link for ${calendar.name}`} aria-describedby={`${id}-replaces`}>
              New link
            </button>
            {stopButton}
            <p id={`${id}-replaces`} className="hint">
              {links.length === 1
                ? 'The link was shown only once, when it was made. A new link replaces it, and the old one stops working.'
                : `Each link was shown only once, when it was made. A new link replaces ${links.length === 2 ? 'both' : `all ${links.length}`}, and they stop working.`}
            </p>
          </div>
        )
      )}
      {feedNote && (
        <p role="status" className="feed-note">
          {feedNote}
        </p>
      )}
      {feedError && (
        <p role="alert" className="error">
          {feedError}
        </p>
      )}
    </li>
  );
}
