import { useEffect, useState } from 'react';
import type { ReminderDue } from '@calsync/client';
import { client } from './client.js';
import { formatTime } from './format.js';
import { showToast } from './toast.js';

type Permission = NotificationPermission | 'unsupported';

const permissionNow = (): Permission => ('Notification' in window ? Notification.permission : 'unsupported');

/** When the reminded-of thing is, in the user's locale: a date for all-day, else date and time. */
function whenOf(due: ReminderDue): string {
  const at = due.start ?? due.dueAt;
  if (/^\d{4}-\d{2}-\d{2}$/.test(at)) return new Date(`${at}T00:00:00`).toLocaleDateString(undefined, { dateStyle: 'medium' });
  return formatTime(at);
}

/**
 * Due reminders, as the server announces them on the notification stream
 * (`client.reminders.onDue`): an in-app toast each, and a browser Notification too once the user
 * allowed them with "Turn on notifications" (shown below the screen while the browser has not
 * been asked yet).
 * Render once in the app shell.
 */
export function ReminderAlerts() {
  const [permission, setPermission] = useState<Permission>(permissionNow);
  const ask = async (): Promise<void> => {
    if (!('Notification' in window)) return;
    setPermission(await Notification.requestPermission());
  };
  useEffect(
    () =>
      client.reminders.onDue((due) => {
        const when = whenOf(due);
        showToast({ message: `Reminder: ${due.title}, ${when}`, durationMs: 20_000 });
        if (permissionNow() === 'granted') {
          // The tag names the occurrence: a second tab or a repeat replaces rather than doubles it.
          new Notification(due.title, { body: when, tag: `${due.reminderUid} ${due.occurrenceStart}` });
        }
      }),
    [],
  );
  if (permission !== 'default') return null;
  // In the page's flow below the screen (not floating), so it never covers what a screen shows.
  return (
    <p style={{ maxWidth: '76rem', margin: '0 auto', padding: '0 1.25rem 1.25rem', boxSizing: 'border-box' }}>
      <button type="button" className="secondary" onClick={() => void ask()}>
        Turn on notifications
      </button>{' '}
      to see reminders when this tab is in the background.
    </p>
  );
}
