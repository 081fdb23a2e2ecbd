import { useId, useState, type FormEvent } from 'react';
import { client } from '../client.js';
import { confirmAndDelete, reminderBundle } from '../deletion.js';
import { formatTime, fromLocalInput } from '../format.js';
import { useRecords } from '../hooks.js';
import type { ReminderRecord } from '../records.js';

/** Reminders of events and tasks: minutes before, or at a fixed time. */
export function RemindersScreen() {
  const reminders = useRecords('reminders');
  const events = useRecords('events');
  const tasks = useRecords('tasks');
  const nameOf = (r: ReminderRecord): string =>
    r.eventUid
      ? `Event: ${events.find((e) => e.uid === r.eventUid)?.title ?? r.eventUid}`
      : `Task: ${tasks.find((t) => t.uid === r.taskUid)?.title ?? r.taskUid ?? ''}`;
  const when = (r: ReminderRecord): string =>
    r.remindAt ? `at ${formatTime(r.remindAt)}` : `${r.minutesBefore ?? 0} minutes before`;

  const [target, setTarget] = useState('');
  const [mode, setMode] = useState<'before' | 'at'>('before');
  const [minutes, setMinutes] = useState('15');
  const [at, setAt] = useState('');
  const id = useId();
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    const [kind, uid] = target.split(':', 2) as ['event' | 'task', string];
    if (!uid) return;
    const when = mode === 'before' ? { minutesBefore: Number(minutes) } : { remindAt: fromLocalInput(at) };
    void client.reminders.put({ ...(kind === 'event' ? { eventUid: uid } : { taskUid: uid }), ...when });
  };

  return (
    <section aria-labelledby="reminders-title">
      <h1 id="reminders-title">Reminders</h1>
      <form onSubmit={submit} className="form-grid narrow" aria-label="New reminder">
        <label htmlFor={`${id}-target`}>Remind me of</label>
        <select id={`${id}-target`} required value={target} onChange={(e) => setTarget(e.target.value)}>
          <option value="">Choose an event or a task</option>
          <optgroup label="Events">
            {events.map((e) => (
              <option key={e.uid} value={`event:${e.uid}`}>
                {e.title}
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
          <button type="submit">Add reminder</button>
        </div>
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
              <button type="button" className="danger small" onClick={() => void confirmAndDelete({ noun: 'reminder', name: `${nameOf(r)}, ${when(r)}`, main: 'reminders', bundle: reminderBundle(r.uid) }, () => client.reminders.remove(r.uid))} aria-label={`Delete reminder: ${nameOf(r)}, ${when(r)}`}>
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
