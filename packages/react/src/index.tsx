// React hooks over @calsync/client. Each hook reads the SDK's in-memory state through
// useSyncExternalStore, so a component renders the local data at once (offline too) and again
// after every change the SDK announces: a local write, a pull, another tab's write, a status change.
import type { ClientConflict, Collection, LocalRecord, FieldsOf, OccurrencePage, OccurrencesQuery, PendingItem, SyncClient, SyncStatus } from '@calsync/client';
import { createContext, useContext, useEffect, useMemo, useSyncExternalStore, type ReactNode } from 'react';

const ClientContext = createContext<SyncClient | null>(null);

/** Makes `client` the one the hooks below read; an app renders it once around its screens. */
export function SyncProvider({ client, children }: { readonly client: SyncClient; readonly children?: ReactNode }): ReactNode {
  return <ClientContext.Provider value={client}>{children}</ClientContext.Provider>;
}

/** The client of the nearest SyncProvider. */
export function useSyncClient(): SyncClient {
  const client = useContext(ClientContext);
  if (!client) throw new Error('@calsync/react: render inside <SyncProvider client={…}>');
  return client;
}

/**
 * A value read from the client, cached between changes (useSyncExternalStore needs the same value
 * back until something changed), and read again when `listen` reports a change.
 */
function useClientValue<T>(listen: (changed: () => void) => () => void, read: () => T, deps: readonly unknown[]): T {
  const store = useMemo(() => {
    let value = read();
    return {
      subscribe(notify: () => void): () => void {
        value = read(); // anything that changed between the first render and the subscription
        return listen(() => {
          value = read();
          notify();
        });
      },
      get: () => value,
    };
  }, deps);
  return useSyncExternalStore(store.subscribe, store.get, store.get);
}

/** A record type's collection name: 'calendars', 'events', 'tasks' or 'reminders'. */
export type RecordTypeName = keyof FieldsOf;

/** Every local record of `type`, in uid order, typed per type. */
export function useRecords<T extends RecordTypeName>(type: T): LocalRecord<FieldsOf[T]>[] {
  const client = useSyncClient();
  const collection = client[type] as unknown as Collection<FieldsOf[T]>;
  return useClientValue((changed) => collection.subscribe(changed), () => collection.list(), [client, type]);
}

/** One local record, or undefined. */
export function useRecord<T extends RecordTypeName>(type: T, uid: string | undefined): LocalRecord<FieldsOf[T]> | undefined {
  const client = useSyncClient();
  const collection = client[type] as unknown as Collection<FieldsOf[T]>;
  return useClientValue((changed) => collection.subscribe(changed), () => (uid === undefined ? undefined : collection.get(uid)), [client, type, uid]);
}

/** The occurrences of the local events in a window (series expanded), read again after every event change. */
export function useOccurrences(query: OccurrencesQuery): OccurrencePage {
  const client = useSyncClient();
  const key = JSON.stringify(query);
  return useClientValue((changed) => client.events.subscribe(changed), () => client.occurrences(query), [client, key]);
}

/** The client's sync status: signed in, online, syncing, pending and failed counts, last sync, last error. */
export function useSyncStatus(): SyncStatus {
  const client = useSyncClient();
  return useClientValue((changed) => client.onStatus(changed), () => client.status, [client]);
}

/** The outbox: every local change not yet answered (`pending`), and the parked ones (`failed`, with `retry`). */
export function useOutbox(): { readonly pending: PendingItem[]; readonly failed: PendingItem[]; retry(uid?: string): Promise<void> } {
  const client = useSyncClient();
  const pending = useClientValue((changed) => client.onStatus(changed), () => client.outbox.pending(), [client]);
  const retry = useMemo(() => (uid?: string) => client.outbox.retry(uid), [client]);
  return useMemo(() => ({ pending, failed: pending.filter((i) => i.state === 'failed'), retry }), [retry, pending]);
}

/**
 * The user's unresolved conflicts, each with `mine` (the side this device wrote): listed from the
 * server on mount, then kept current by `conflicts.subscribe` (new ones) and by `restore` and
 * `dismiss` (resolved ones leave the list). Every component of one client shares one list, so a
 * badge and a conflict screen agree. `loaded` turns true after the first listing; `error` holds
 * the last listing's failure (offline, say) while the list keeps what was known.
 */
export function useConflicts(): {
  readonly conflicts: readonly ClientConflict[];
  readonly loaded: boolean;
  readonly error: unknown;
  restore(conflictId: number): Promise<void>;
  dismiss(conflictId: number): Promise<void>;
  refresh(): Promise<void>;
} {
  const client = useSyncClient();
  const cell = useMemo(() => conflictCellOf(client), [client]);
  useEffect(() => cell.attach(), [cell]);
  const state = useSyncExternalStore(cell.subscribe, cell.get, cell.get);
  return useMemo(() => ({ ...state, ...cell.actions }), [cell, state]);
}

interface ConflictState {
  readonly conflicts: readonly ClientConflict[];
  readonly loaded: boolean;
  readonly error: unknown;
}

const conflictCells = new WeakMap<SyncClient, ConflictCell>();
function conflictCellOf(client: SyncClient): ConflictCell {
  let cell = conflictCells.get(client);
  if (!cell) conflictCells.set(client, (cell = new ConflictCell(client)));
  return cell;
}

/** The conflict list useConflicts renders, shared by every user of one client. */
class ConflictCell {
  #state: ConflictState = { conflicts: [], loaded: false, error: undefined };
  readonly #listeners = new Set<() => void>();
  #users = 0;
  #unsubscribe: (() => void) | null = null;
  #asked = 0;
  constructor(private readonly client: SyncClient) {}
  /**
   * The hook's actions, one set for the client's life: an effect that depends on `refresh` runs
   * once, not again after every listing it caused (the web app's conflict screen once listed about
   * 80 times a second that way, until the user's rate limit refused it and every device's sync).
   */
  readonly actions = {
    restore: (conflictId: number) => this.resolve(conflictId, 'restore'),
    dismiss: (conflictId: number) => this.resolve(conflictId, 'dismiss'),
    refresh: () => this.refresh(),
  };
  get = (): ConflictState => this.#state;
  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };
  /** A component started using the list: listen to new conflicts while anyone does, and list them afresh. */
  attach(): () => void {
    if (this.#users++ === 0) this.#unsubscribe = this.client.conflicts.subscribe((fresh) => this.add(fresh));
    void this.refresh().catch(() => undefined);
    return () => {
      if (--this.#users === 0) {
        this.#unsubscribe?.();
        this.#unsubscribe = null;
      }
    };
  }
  async refresh(): Promise<void> {
    const ask = ++this.#asked;
    try {
      const conflicts = await this.client.conflicts.list();
      // An older listing answering after a newer one does not overwrite it.
      if (ask === this.#asked) this.#set({ conflicts, loaded: true, error: undefined });
    } catch (error) {
      if (ask === this.#asked) this.#set({ ...this.#state, error });
      throw error;
    }
  }
  add(fresh: readonly ClientConflict[]): void {
    const known = new Set(this.#state.conflicts.map((c) => c.conflictId));
    this.#set({ ...this.#state, conflicts: [...this.#state.conflicts, ...fresh.filter((c) => !known.has(c.conflictId))] });
  }
  async resolve(conflictId: number, action: 'restore' | 'dismiss'): Promise<void> {
    await this.client.conflicts[action](conflictId);
    this.#set({ ...this.#state, conflicts: this.#state.conflicts.filter((c) => c.conflictId !== conflictId) });
  }
  #set(state: ConflictState): void {
    this.#state = state;
    for (const l of [...this.#listeners]) l();
  }
}
