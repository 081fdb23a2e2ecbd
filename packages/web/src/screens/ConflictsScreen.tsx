import type { WireConflict } from '@calsync/client';
import { useCallback, useEffect, useState } from 'react';
import { client } from '../client.js';
import { errorMessage } from '../errors.js';
import { formatTime } from '../format.js';
import { useSyncStatus } from '../hooks.js';
import { describeRrule } from '../recurrence.js';

/** A conflict as the SDK lists it: which record, and the version of it that lost. */
type ConflictView = WireConflict;

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

function show(field: string, value: unknown): string {
  if (field === 'calendarUid' && typeof value === 'string') {
    const calendar = client.calendars.get(value) as { name?: unknown } | undefined;
    if (typeof calendar?.name === 'string') return calendar.name;
  }
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)) return formatTime(value);
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (field === 'rrule' && typeof value === 'string') return describeRrule(value);
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * The conflict centre: for each unresolved conflict, the current record and the losing version side
 * by side. Keep mine restores the losing version; Keep theirs dismisses it.
 */
export function ConflictsScreen() {
  const status = useSyncStatus();
  const [conflicts, setConflicts] = useState<ConflictView[] | null>(null);
  const [error, setError] = useState('');
  const load = useCallback(() => {
    client.conflicts
      .list()
      .then((list) => {
        setConflicts(list);
        setError('');
      })
      .catch((err: unknown) => setError(errorMessage(err)));
  }, []);
  // Reload after every sync round: a new conflict may have arrived, or another device resolved one.
  useEffect(load, [load, status.lastSyncAt, status.online]);

  const resolve = async (c: ConflictView, action: 'restore' | 'dismiss'): Promise<void> => {
    try {
      await (action === 'restore' ? client.conflicts.restore(c.conflictId) : client.conflicts.dismiss(c.conflictId));
      setConflicts((list) => (list ?? []).filter((x) => x.conflictId !== c.conflictId));
      void client.sync();
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  return (
    <section aria-labelledby="conflicts-title">
      <h1 id="conflicts-title">Conflict centre</h1>
      <p className="hint">
        When two devices changed the same thing, the server kept one version and set the other aside. Keep mine puts the
        losing version back; Keep theirs leaves the current one.
      </p>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {conflicts === null ? (
        <p>Loading…</p>
      ) : conflicts.length === 0 ? (
        <p>No conflicts. Everything agrees.</p>
      ) : (
        <ul className="conflicts">
          {conflicts.map((c) => (
            <li key={String(c.conflictId)}>
              <ConflictCard conflict={c} onResolve={(action) => void resolve(c, action)} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ConflictCard({ conflict, onResolve }: { conflict: ConflictView; onResolve: (action: 'restore' | 'dismiss') => void }) {
  const collection = COLLECTION_OF[conflict.entityType];
  const current = (collection ? client[collection].get(conflict.entityUid) : undefined) as Record<string, unknown> | undefined;
  const [currentRecord, setCurrentRecord] = useState<Record<string, unknown> | undefined>(current instanceof Promise ? undefined : current);
  useEffect(() => {
    if (!collection) return;
    const read = (): void => {
      void Promise.resolve(client[collection].get(conflict.entityUid)).then((r) => setCurrentRecord(r as Record<string, unknown> | undefined));
    };
    read();
    return client[collection].subscribe(read);
  }, [collection, conflict.entityUid]);
  const losing = conflict.loserSnapshot as Readonly<Record<string, unknown>>;
  const fields = [...new Set([...Object.keys(currentRecord ?? {}), ...Object.keys(losing)])].filter((f) => !HIDDEN_FIELDS.has(f));
  const label = String(currentRecord?.title ?? currentRecord?.name ?? losing.title ?? losing.name ?? conflict.entityUid);
  const headingId = `conflict-${String(conflict.conflictId)}`;
  return (
    <article className="card conflict" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {conflict.entityType.toLowerCase()} “{label}”
      </h2>
      {conflict.createdAt && <p className="hint">Conflict from {formatTime(conflict.createdAt)}</p>}
      <table>
        <caption className="visually-hidden">Current version and losing version of {label}</caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Current (kept by the server)</th>
            <th scope="col">Losing version</th>
          </tr>
        </thead>
        <tbody>
          {fields.map((f) => {
            const a = show(f, currentRecord?.[f]);
            const b = show(f, losing[f]);
            return (
              <tr key={f} className={a !== b ? 'differs' : ''}>
                <th scope="row">{FIELD_LABELS[f] ?? f}</th>
                <td>{currentRecord ? a : 'deleted'}</td>
                <td>{b}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <div className="actions">
        <button type="button" onClick={() => onResolve('restore')}>
          Keep mine
        </button>
        <button type="button" className="secondary" onClick={() => onResolve('dismiss')}>
          Keep theirs
        </button>
      </div>
    </article>
  );
}
