import { useId, useState, type FormEvent } from 'react';
import { client } from '../client.js';
import { confirmAndDelete, taskBundle } from '../deletion.js';
import { formatTime, fromLocalInput, toLocalInput } from '../format.js';
import { useRecords } from '../hooks.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { saved } from '../errors.js';
import type { TaskRecord } from '../records.js';

/** Tasks with subtasks, due times and completion. */
export function TasksScreen() {
  const tasks = useRecords('tasks');
  const top = tasks.filter((t) => !t.parentTaskUid || !tasks.some((p) => p.uid === t.parentTaskUid));
  return (
    <section aria-labelledby="tasks-title">
      <h1 id="tasks-title">Tasks</h1>
      <TaskForm label="New task" />
      {top.length === 0 ? (
        <p className="hint">No tasks yet.</p>
      ) : (
        <ul className="task-list">
          {sortTasks(top).map((t) => (
            <TaskItem key={t.uid} task={t} all={tasks} />
          ))}
        </ul>
      )}
    </section>
  );
}

function sortTasks(tasks: readonly TaskRecord[]): TaskRecord[] {
  return [...tasks].sort((a, b) => Number(a.completed ?? false) - Number(b.completed ?? false) || (a.dueAt ?? '~').localeCompare(b.dueAt ?? '~') || a.title.localeCompare(b.title));
}

function TaskItem({ task, all }: { task: TaskRecord; all: readonly TaskRecord[] }) {
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState(false);
  const subtasks = all.filter((t) => t.parentTaskUid === task.uid);
  const toggle = (completed: boolean): void => {
    void client.tasks.put({ uid: task.uid, completed, completedAt: completed ? new Date().toISOString() : null });
  };
  if (editing) {
    return (
      <li>
        <TaskForm label={`Edit task ${task.title}`} task={task} onDone={() => setEditing(false)} />
      </li>
    );
  }
  return (
    <li className={task.completed ? 'done' : ''}>
      <div className="task-row">
        <label className="check">
          <input type="checkbox" checked={task.completed ?? false} onChange={(e) => toggle(e.target.checked)} aria-label={`Complete ${task.title}`} />
          <span className="task-title">{task.title}</span>
        </label>
        {task.dueAt && <span className="due">due {formatTime(task.dueAt)}</span>}
        <button type="button" className="secondary small" onClick={() => setEditing(true)} aria-label={`Edit task ${task.title}`}>
          Edit
        </button>
        <button type="button" className="secondary small" onClick={() => setAdding((v) => !v)} aria-expanded={adding} aria-label={`Add subtask to ${task.title}`}>
          + Subtask
        </button>
        <button type="button" className="danger small" onClick={() => void confirmAndDelete({ noun: 'task', name: task.title, main: 'tasks', bundle: taskBundle(task.uid) }, () => client.tasks.remove(task.uid))} aria-label={`Delete task ${task.title}`}>
          Delete
        </button>
      </div>
      {adding && <TaskForm label={`New subtask of ${task.title}`} parentTaskUid={task.uid} onDone={() => setAdding(false)} />}
      {subtasks.length > 0 && (
        <ul className="task-list sub">
          {sortTasks(subtasks).map((t) => (
            <TaskItem key={t.uid} task={t} all={all} />
          ))}
        </ul>
      )}
    </li>
  );
}

/**
 * A new task or subtask, or (with `task`) an existing one edited; empty again after each save. A
 * save the SDK refuses (a title over its length, say) keeps what was typed and says why.
 */
function TaskForm({ label, parentTaskUid, task, onDone }: { label: string; parentTaskUid?: string; task?: TaskRecord; onDone?: () => void }) {
  const [title, setTitle] = useState(task?.title ?? '');
  const [due, setDue] = useState(toLocalInput(task?.dueAt));
  const [error, setError] = useState<unknown>(null);
  const id = useId();
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    if (!title.trim()) return;
    const fields = { title: title.trim(), dueAt: fromLocalInput(due) };
    if (!(await saved(() => client.tasks.put(task ? { uid: task.uid, ...fields } : { ...fields, ...(parentTaskUid ? { parentTaskUid } : {}) }), setError))) return;
    setTitle('');
    setDue('');
    onDone?.();
  };
  return (
    <form onSubmit={(e) => void submit(e)} className="inline-form" aria-label={label}>
      <label htmlFor={`${id}-title`}>{parentTaskUid || task?.parentTaskUid ? 'Subtask' : 'Task'}</label>
      <input id={`${id}-title`} required autoFocus={task !== undefined} value={title} onChange={(e) => setTitle(e.target.value)} />
      <label htmlFor={`${id}-due`}>Due</label>
      <input id={`${id}-due`} type="datetime-local" value={due} onChange={(e) => setDue(e.target.value)} />
      <button type="submit">{task ? 'Save' : parentTaskUid ? 'Add subtask' : 'Add task'}</button>
      {task && (
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      )}
      {error !== null && <ErrorNote error={error} />}
    </form>
  );
}
