import type { SyncStatus } from '@calsync/client';
import { useRecords as useCalsyncRecords, useSyncStatus as useCalsyncStatus, type RecordTypeName } from '@calsync/react';
import { useMemo, useSyncExternalStore } from 'react';
import { sessionEnd } from './client.js';
import { isLive, type CalendarRecord, type EventRecord, type ReminderRecord, type TaskRecord } from './records.js';

// The screens read the SDK through @calsync/react's hooks (useSyncExternalStore over the client);
// these add what is the web app's own: the browser's offline event and hiding tombstones.

const subscribeOnline = (changed: () => void): (() => void) => {
  window.addEventListener('online', changed);
  window.addEventListener('offline', changed);
  return () => {
    window.removeEventListener('online', changed);
    window.removeEventListener('offline', changed);
  };
};

/**
 * The SDK's sync status. The SDK learns of a lost network from its next request; the browser's
 * offline event says so at once.
 */
export function useSyncStatus(): SyncStatus {
  const status = useCalsyncStatus();
  const browserOnline = useSyncExternalStore(subscribeOnline, () => navigator.onLine);
  return browserOnline ? status : { ...status, online: false };
}

/** Whether the server ended the session since the last sign-in (not a "Sign out" of the user). */
export function useSessionEnded(): boolean {
  return useSyncExternalStore(sessionEnd.subscribe, () => sessionEnd.ended);
}

interface RecordTypes {
  calendars: CalendarRecord;
  events: EventRecord;
  tasks: TaskRecord;
  reminders: ReminderRecord;
}

/** The live records of one type from the local store. */
export function useRecords<T extends RecordTypeName>(type: T): RecordTypes[T][] {
  const all = useCalsyncRecords(type) as RecordTypes[T][];
  return useMemo(() => all.filter(isLive), [all]);
}
