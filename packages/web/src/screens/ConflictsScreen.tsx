import type { ClientConflict } from '@calsync/client';
import { useConflicts, useRecord } from '@calsync/react';
import { useEffect, useState } from 'react';
import { client } from '../client.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { errorMessage } from '../errors.js';
import { formatTime } from '../format.js';
import { useSyncStatus } from '../hooks.js';
import { describeRrule, viewerZone } from '../recurrence.js';

const COLLECTION_OF: Readonly<Record<string, 'calendars' | 'events' | 'tasks' | 'reminders'>> = {
  CALENDAR: 'calendars',
  EVENT: 'events',
  TASK: 'tasks',
  REMINDER: 'reminders',
};
/** Field names as people say them; the rest show as sent. */
const FIELD_LABELS: Readonly<Record<string, string>> = {
  calendarUid: 'Calendar',
  title: 'Title',
  description: 'Description',
  location: 'Location',
  startTime: 'Starts',
  endTime: 'Ends',
  allDay: 'All day',
  timezone: 'Time zone',
  rrule: 'Repeats',
  exdate: 'Removed occurrences',
  name: 'Name',
  color: 'Colour',
  isDefault: 'Default',
  notes: 'Notes',
  dueAt: 'Due',
  completed: 'Completed',
  completedAt: 'Completed at',
  priority: 'Priority',
  parentTaskUid: 'Parent task',
  eventUid: 'Event',
  taskUid: 'Task',
  minutesBefore: 'Minutes before',
  remindAt: 'Remind at',
};
const HIDDEN_FIELDS = new Set(['uid', 'version', 'id', 'userId', 'createdAt', 'updatedAt', 'deleted']);

/** A field of one side of a conflict, as a person reads it (a rule's end date in that side's own zone). */
function show(field: string, side: Readonly<Record<string, unknown>>): string {
  const value = side[field];
  if (field === 'calendarUid' && typeof value === 'string') {
    const calendar = client.calendars.get(value) as { name?: unknown } | undefined;
    if (typeof calendar?.name === 'string') return calendar.name;
  }
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)) return formatTime(value);
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (field === 'rrule' && typeof value === 'string') return describeRrule(value, typeof side.timezone === 'string' ? side.timezone : viewerZone());
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The two sides of a conflict as this device sees them, from the SDK's `mine`. */
function sidesOf(mine: ClientConflict['mine']): { current: string; losing: string; keepCurrent: string; keepLosing: string } {
  if (mine === 'current') return { current: "This device's version", losing: "The other device's version", keepCurrent: 'Keep mine', keepLosing: 'Keep theirs' };
  if (mine === 'loser') return { current: "The other device's version", losing: "This device's version", keepCurrent: 'Keep theirs', keepLosing: 'Keep mine' };
  // Neither side was written here (two other devices met): say which one the server kept.
  return { current: 'Current version', losing: 'Set-aside version', keepCurrent: 'Keep the current version', keepLosing: 'Put back the set-aside version' };
}

/**
 * The conflict centre: for each unresolved conflict, the fields in which this device's version
 * and the other device's differ ("Show all fields" for the rest), and a choice of the version to
 * keep. "Keep mine" keeps this device's version, whichever of the two the server kept; the other
 * is put back (restore) or set aside for good (dismiss). Offline, the conflicts known so far.
 */
export function ConflictsScreen() {
  const status = useSyncStatus();
  const { conflicts, loaded, error, restore, dismiss, refresh } = useConflicts();
  const [resolveError, setResolveError] = useState('');
  // List afresh after every sync round: another device may have resolved one.
  useEffect(() => {
    if (status.online) void refresh().catch(() => undefined);
  }, [refresh, status.lastSyncAt, status.online]);

  const resolve = async (c: ClientConflict, action: 'restore' | 'dismiss'): Promise<void> => {
    try {
      await (action === 'restore' ? restore(c.conflictId) : dismiss(c.conflictId));
      setResolveError('');
      void client.sync().catch(() => undefined);
    } catch (err) {
      setResolveError(errorMessage(err));
    }
  };

  return (
    <section aria-labelledby="conflicts-title">
      <h1 id="conflicts-title">Conflict centre</h1>
      <p className="hint">When two devices changed the same thing, the server kept one version and set the other aside. Choose the one to keep.</p>
      {!status.online && (
        <p className="notice" role="note">
          You are offline. {loaded ? 'These are the conflicts known so far; new' : 'New'} ones come with the next sync.
        </p>
      )}
      {resolveError && (
        <p role="alert" className="error">
          {resolveError}
        </p>
      )}
      {status.online && error !== undefined && !loaded && <ErrorNote error={error} />}
      {!loaded && conflicts.length === 0 ? (
        status.online && error === undefined && <p>Loading…</p>
      ) : conflicts.length === 0 ? (
        <p>No conflicts. Everything agrees.</p>
      ) : (
        <ul className="conflicts">
          {conflicts.map((c) => (
            <li key={String(c.conflictId)}>
              <ConflictCard conflict={c} online={status.online} onResolve={(action) => void resolve(c, action)} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ConflictCard({ conflict, online, onResolve }: { conflict: ClientConflict; online: boolean; onResolve: (action: 'restore' | 'dismiss') => void }) {
  const collection = COLLECTION_OF[conflict.entityType] ?? 'events';
  const current = useRecord(collection, conflict.entityUid) as Record<string, unknown> | undefined;
  const [showAll, setShowAll] = useState(false);
  const losing = conflict.loserSnapshot as Readonly<Record<string, unknown>>;
  const fields = [...new Set([...Object.keys(current ?? {}), ...Object.keys(losing)])].filter((f) => !HIDDEN_FIELDS.has(f));
  const differs = (f: string): boolean => current === undefined || show(f, current) !== show(f, losing);
  const differing = fields.filter(differs);
  const shown = showAll ? fields : differing;
  const label = String(current?.title ?? current?.name ?? losing.title ?? losing.name ?? conflict.entityUid);
  const headingId = `conflict-${String(conflict.conflictId)}`;
  const sides = sidesOf(conflict.mine);
  const kind = { CALENDAR: 'Calendar', EVENT: 'Event', TASK: 'Task', REMINDER: 'Reminder' }[conflict.entityType] ?? conflict.entityType;
  return (
    <article className="card conflict" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {kind} “{label}”
      </h2>
      {conflict.createdAt && <p className="hint">Changed on two devices; noticed {formatTime(conflict.createdAt)}.</p>}
      <div className="table-scroll">
        <table>
          <caption className="visually-hidden">
            {showAll ? 'Every field' : 'The fields that differ'} of {label}
          </caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">{sides.current}</th>
              <th scope="col">{sides.losing}</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((f) => (
              <tr key={f} className={differs(f) ? 'differs' : ''}>
                <th scope="row">{FIELD_LABELS[f] ?? f}</th>
                <td>{current ? show(f, current) : 'deleted'}</td>
                <td>{show(f, losing)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {fields.length > differing.length && (
        <button type="button" className="link" aria-expanded={showAll} onClick={() => setShowAll((v) => !v)}>
          {showAll ? 'Show only the differences' : `Show all fields (${fields.length - differing.length} the same)`}
        </button>
      )}
      <div className="actions">
        {/* Keeping the current version sets the other aside for good (dismiss); keeping the other puts it back (restore). */}
        {(
          [
            [sides.keepCurrent, 'dismiss'],
            [sides.keepLosing, 'restore'],
          ] as const
        )
          .slice()
          .sort(([a], [b]) => Number(b === 'Keep mine') - Number(a === 'Keep mine'))
          .map(([name, action], i) => (
            <button key={action} type="button" className={i === 0 ? '' : 'secondary'} disabled={!online} onClick={() => onResolve(action)}>
              {name}
            </button>
          ))}
      </div>
    </article>
  );
}
