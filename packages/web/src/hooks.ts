import type { SyncStatus } from '@calsync/client';
import { useRecords as useCalsyncRecords, useSyncStatus as useCalsyncStatus, type RecordTypeName } from '@calsync/react';
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { sessionEnd } from './client.js';
import type { CalendarRecord, EventRecord, ReminderRecord, TaskRecord } from './records.js';

// The screens read the SDK through @calsync/react's hooks (useSyncExternalStore over the client);
// these add what is the web app's own: the browser's offline event, the session-ended flag, and a
// small query helper for the screens that ask the server (devices).

const subscribeOnline = (changed: () => void): (() => void) => {
  window.addEventListener('online', changed);
  window.addEventListener('offline', changed);
  return () => {
    window.removeEventListener('online', changed);
    window.removeEventListener('offline', changed);
  };
};

/**
 * The SDK's sync status, the one source of "online" for every screen. The SDK learns of a lost
 * network from its next request; the browser's offline event says so at once.
 */
export function useSyncStatus(): SyncStatus {
  const status = useCalsyncStatus();
  const browserOnline = useSyncExternalStore(subscribeOnline, () => navigator.onLine);
  return browserOnline ? status : { ...status, online: false };
}

/** Whether the app can reach the server now (from useSyncStatus). */
export function useOnline(): boolean {
  return useSyncStatus().online;
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

/** The records of one type from the local store (the SDK keeps no deleted ones). */
export function useRecords<T extends RecordTypeName>(type: T): RecordTypes[T][] {
  return useCalsyncRecords(type) as RecordTypes[T][];
}

/** What useQuery holds: the last answer, the last error, whether a request is under way. */
export interface Query<T> {
  readonly data: T | undefined;
  readonly error: unknown;
  readonly loading: boolean;
  /** Asks again; an older request answering later is ignored. */
  refetch(): void;
}

/**
 * A server request for a screen: run on mount and whenever `key` changes, again on `refetch`,
 * with only the newest request's answer kept (a slow older answer never overwrites a newer one)
 * and nothing set after the screen went away. The last answer stays while a new one loads or fails.
 */
export function useQuery<T>(key: string, load: () => Promise<T>): Query<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const latest = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const run = useCallback(() => {
    const ask = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    loadRef.current().then(
      (data) => {
        if (ask === latest.current) setState({ data, error: undefined, loading: false });
      },
      (error: unknown) => {
        if (ask === latest.current) setState((s) => ({ ...s, error, loading: false }));
      },
    );
  }, []);
  useEffect(() => {
    run();
    return () => {
      latest.current++; // answers after unmount (or for an old key) are dropped
    };
  }, [key, run]);
  return { ...state, refetch: run };
}

/**
 * The width below which the app lays itself out for a phone: the same bound as styles.css's
 * `@media (max-width: 760px)` (a style sheet cannot import it; change both together).
 */
export const NARROW_SCREEN = '(max-width: 760px)';

/** Whether the media query matches now, re-rendering when that changes (a window resized, a phone turned). */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (changed: () => void) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', changed);
      return () => list.removeEventListener('change', changed);
    },
    [query],
  );
  return useSyncExternalStore(subscribe, () => window.matchMedia(query).matches);
}
