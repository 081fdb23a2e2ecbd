import { useId, useState, type FormEvent } from 'react';
import { client } from '../client.js';
import { confirmAndDelete, reminderBundle } from '../deletion.js';
import { formatEventStart, formatTime, fromLocalInput, toLocalInput } from '../format.js';
import { useRecords } from '../hooks.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { saved } from '../errors.js';
import type { EventRecord, ReminderRecord } from '../records.js';

/** Reminders of events and tasks: minutes before, or at a fixed time. */
export function RemindersScreen() {
  const reminders = useRecords('reminders');
  const events = useRecords('events');
  const tasks = useRecords('tasks');
  // Two parts of a split series share a title: the start tells them apart.
  const eventName = (e: EventRecord): string => `${e.title} (${formatEventStart(e)})`;
  const nameOf = (r: ReminderRecord): string => {
    const event = r.eventUid ? events.find((e) => e.uid === r.eventUid) : undefined;
    return r.eventUid
      ? `Event: ${event ? eventName(event) : r.eventUid}`
      : `Task: ${tasks.find((t) => t.uid === r.taskUid)?.title ?? r.taskUid ?? ''}`;
  };
  const when = (r: ReminderRecord): string =>
    r.remindAt ? `at ${formatTime(r.remindAt)}` : `${r.minutesBefore ?? 0} minutes before`;

  const [editing, setEditing] = useState<ReminderRecord | null>(null);
  const [target, setTarget] = useState('');
  const [mode, setMode] = useState<'before' | 'at'>('before');
  const [minutes, setMinutes] = useState('15');
  const [at, setAt] = useState('');
  const [error, setError] = useState<unknown>(null);
  const id = useId();
  const reset = (): void => {
    setError(null);
    setEditing(null);
    setTarget('');
    setMode('before');
    setMinutes('15');
    setAt('');
  };
  const edit = (r: ReminderRecord): void => {
    setEditing(r);
    setTarget(r.eventUid ? `event:${r.eventUid}` : `task:${r.taskUid ?? ''}`);
    setMode(r.remindAt ? 'at' : 'before');
    setMinutes(String(r.minutesBefore ?? 15));
    setAt(toLocalInput(r.remindAt));
  };
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const [kind, uid] = target.split(':', 2) as ['event' | 'task', string];
    if (!uid) return;
    const when = mode === 'before' ? { minutesBefore: Number(minutes), remindAt: null } : { remindAt: fromLocalInput(at), minutesBefore: null };
    // What it reminds of is fixed once made (the server keeps it); an edit changes when.
    if (await saved(() => client.reminders.put(editing ? { uid: editing.uid, ...when } : { ...(kind === 'event' ? { eventUid: uid } : { taskUid: uid }), ...when }), setError)) reset();
  };

  return (
    <section aria-labelledby="reminders-title">
      <h1 id="reminders-title">Reminders</h1>
      <form onSubmit={(e) => void submit(e)} className="form-grid narrow" aria-label={editing ? 'Edit reminder' : 'New reminder'}>
        <label htmlFor={`${id}-target`}>Remind me of</label>
        <select id={`${id}-target`} required value={target} disabled={editing !== null} onChange={(e) => setTarget(e.target.value)}>
          <option value="">Choose an event or a task</option>
          <optgroup label="Events">
            {events.map((e) => (
              <option key={e.uid} value={`event:${e.uid}`}>
                {eventName(e)}
              </option>
            ))}
          </optgroup>
          <optgroup label="Tasks">
            {tasks.map((t) => (
              <option key={t.uid} value={`task:${t.uid}`}>
                {t.title}
              </option>
            ))}
          </optgroup>
        </select>
        <label htmlFor={`${id}-mode`}>When</label>
        <select id={`${id}-mode`} value={mode} onChange={(e) => setMode(e.target.value as 'before' | 'at')}>
          <option value="before">Minutes before</option>
          <option value="at">At a time</option>
        </select>
        {mode === 'before' ? (
          <>
            <label htmlFor={`${id}-minutes`}>Minutes before</label>
            <input id={`${id}-minutes`} type="number" min={0} max={40320} required value={minutes} onChange={(e) => setMinutes(e.target.value)} />
          </>
        ) : (
          <>
            <label htmlFor={`${id}-at`}>Remind at</label>
            <input id={`${id}-at`} type="datetime-local" required value={at} onChange={(e) => setAt(e.target.value)} />
          </>
        )}
        <div className="actions span-2">
          <button type="submit">{editing ? 'Save reminder' : 'Add reminder'}</button>
          {editing && (
            <button type="button" className="secondary" onClick={reset}>
              Cancel
            </button>
          )}
        </div>
        {error !== null && (
          <div className="span-2">
            <ErrorNote error={error} />
          </div>
        )}
      </form>
      {reminders.length === 0 ? (
        <p className="hint">No reminders yet.</p>
      ) : (
        <ul className="plain-list">
          {reminders.map((r) => (
            <li key={r.uid}>
              <span>
                {nameOf(r)}, {when(r)}
              </span>
              <span className="row-actions">
              <button type="button" className="secondary small" onClick={() => edit(r)} aria-label={`Edit reminder: ${nameOf(r)}, ${when(r)}`}>
                Edit
              </button>
              <button type="button" className="danger small" onClick={() => void confirmAndDelete({ noun: 'reminder', name: `${nameOf(r)}, ${when(r)}`, main: 'reminders', bundle: reminderBundle(r.uid) }, () => client.reminders.remove(r.uid))} aria-label={`Delete reminder: ${nameOf(r)}, ${when(r)}`}>
                Delete
              </button>
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
