import type { SyncStatus } from '@calsync/client';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { client, sessionEnd } from './client.js';
import { isLive, type CalendarRecord, type EventRecord, type ReminderRecord, type TaskRecord } from './records.js';

/**
 * The SDK's sync status, re-rendered on every change (online, pending, last sync, failures). The
 * SDK learns of a lost network from its next request; the browser's offline event says so at once.
 */
export function useSyncStatus(): SyncStatus {
  const [status, setStatus] = useState<SyncStatus>(() => ({ ...client.status }));
  const [browserOnline, setBrowserOnline] = useState(() => navigator.onLine);
  useEffect(() => {
    setStatus({ ...client.status });
    const update = (): void => setBrowserOnline(navigator.onLine);
    window.addEventListener('online', update);
    window.addEventListener('offline', update);
    const unsubscribe = client.onStatus((s) => setStatus({ ...s }));
    return () => {
      unsubscribe();
      window.removeEventListener('online', update);
      window.removeEventListener('offline', update);
    };
  }, []);
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

/** The live records of one type from the local store, kept current through the SDK's subscription. */
export function useRecords<T extends keyof RecordTypes>(type: T): RecordTypes[T][] {
  const [records, setRecords] = useState<RecordTypes[T][]>([]);
  useEffect(() => {
    let current = true;
    const load = (): void => {
      void Promise.resolve(client[type].list()).then((all) => {
        if (current) setRecords((all as unknown as RecordTypes[T][]).filter(isLive));
      });
    };
    load();
    const unsubscribe = client[type].subscribe(load);
    return () => {
      current = false;
      unsubscribe();
    };
  }, [type]);
  return records;
}
