// The shape of the SDK's one object, `SyncClient`, and the items it lists. `createSyncClient`
// (client.ts) assembles it from its parts: auth, transport, runner, tabs, conflicts, account, outbox.
import type { OccurrencePage, RecordType } from '@calsync/domain/rules';
import type { ClientAuth } from './auth.js';
import type { Collection } from './collection.js';
import type { ClientConflict } from './engine/conflict-feed.js';
import type { SyncReason } from './engine/sync-runner.js';
import type { ImportIcsOptions, ImportIcsResult } from './import-ics.js';
import type { AppPasswordOperations, FeedOperations } from './interop.js';
import type { CalendarFields, EventFields, ReminderFields, TaskFields } from './records.js';
import type { OccurrenceOperations, OccurrencesQuery } from './series.js';
import type { SyncStatus } from './status.js';
import type { OutboxError } from './store/local-store.js';
import type { TriggerSource } from './triggers.js';
import type { ReminderEventWire as WireReminderEvent } from '@calsync/wire';
import type { WireDevice, WireProfileUpdate, WireResolveResponse, WireUser } from './wire.js';

/** A parked outbox item, as `outbox.failed()` lists it. */
export interface FailedItem {
  readonly type: RecordType;
  readonly uid: string;
  readonly op: 'upsert' | 'delete';
  readonly attempts: number;
  readonly error: OutboxError | null;
}

/** An outbox item as `outbox.pending()` lists it: a local change not yet answered by the server. */
export interface PendingItem extends FailedItem {
  /** `pending`: waits for a push; `inflight`: sent, answer outstanding; `failed`: parked (see `outbox.retry`). */
  readonly state: 'pending' | 'inflight' | 'failed';
}

/** The SDK's one object: local data, sign-in, the sync loop and its status. */
export interface SyncClient {
  /** Loads the store; items stuck in flight return to pending, parked ones get a fresh budget. */
  open(): Promise<void>;
  readonly auth: ClientAuth;
  readonly calendars: Collection<CalendarFields>;
  /** Events, with one-occurrence edits of series (`editOccurrence`, `removeOccurrence`). */
  readonly events: Collection<EventFields> & OccurrenceOperations;
  readonly tasks: Collection<TaskFields>;
  readonly reminders: Collection<ReminderFields> & {
    /**
     * Calls `listener` when a reminder of the user falls due (the server's `event: reminder`, once
     * per reminder and occurrence; docs/protocol.md, "Reminders and alerts") while this client's
     * notification stream is open (after `start()`, in the tab that syncs). Returns the unsubscribe function.
     */
    onDue(listener: (due: WireReminderEvent) => void): () => void;
  };
  /**
   * The occurrences of the local events that overlap a window: series expanded in their zones,
   * exdates and overrides applied, ordered by start (the server's GET /api/occurrences answers the
   * same from its copy). Works offline.
   */
  occurrences(query: OccurrencesQuery): OccurrencePage;
  /**
   * Imports an iCalendar file (.ics) as local writes: VEVENTs into `calendarUid` (RECURRENCE-IDs as
   * overrides, VALARMs as reminders), VTODOs as tasks. Idempotent: a second import of the same
   * text creates nothing. What no record can hold is listed in `skipped`, never dropped silently.
   */
  importIcs(text: string, options: ImportIcsOptions): Promise<ImportIcsResult>;
  /** Subscription feeds of calendars (read-only iCalendar URLs). */
  readonly feeds: FeedOperations;
  /** App passwords for CalDAV calendar apps. */
  readonly appPasswords: AppPasswordOperations;
  /** One push-then-pull round (bootstrap pull first when needed); a second call joins the running one. */
  sync(): Promise<void>;
  /** Starts the loop: debounced local writes, online, page visible, the periodic timer, added triggers. */
  start(): void;
  stop(): void;
  readonly status: SyncStatus;
  onStatus(listener: (status: SyncStatus) => void): () => void;
  readonly conflicts: {
    /** The user's unresolved conflicts, from the server, each with the side this device wrote (`mine`). */
    list(): Promise<ClientConflict[]>;
    /** Puts the losing version back (a new version every device pulls). */
    restore(conflictId: number): Promise<WireResolveResponse>;
    /** Keeps the winner. */
    dismiss(conflictId: number): Promise<WireResolveResponse>;
    /**
     * Calls `listener` with the conflicts new since the last round, whichever device's push made
     * them (a device hears of a conflict within its next round, which the server's `conflict`
     * event starts at once), each with `mine`: 'current' when
     * this device wrote the version that stands, 'loser' when it wrote the losing one, else null.
     */
    subscribe(listener: (conflicts: readonly ClientConflict[]) => void): () => void;
  };
  /** The account's signed-in devices (needs the network). */
  readonly devices: {
    /** The live devices of the account; this one has `current: true`. */
    list(): Promise<WireDevice[]>;
    /** Renames a live device of the account (the name shown in device lists); returns it as listed. */
    rename(uid: string, name: string): Promise<WireDevice>;
    /**
     * Revokes a device: its sessions end and its tokens stop working at once (it is signed out at
     * its next request). Revoking this client's own device is a sign-out: the local store is wiped
     * as by `auth.logout()`.
     */
    revoke(uid: string): Promise<void>;
  };
  /** The signed-in user's profile (needs the network). */
  readonly profile: {
    /** The user as the server has it now (also refreshes `auth.user()`). */
    get(): Promise<WireUser>;
    /** Changes name, e-mail, password or notification settings (merged key by key); returns the user. */
    update(patch: WireProfileUpdate): Promise<WireUser>;
  };
  readonly outbox: {
    failed(): FailedItem[];
    /** Every local change not yet answered by the server, in the order they go out. */
    pending(): PendingItem[];
    /** Parked items (of one uid, or all) back to pending with a fresh budget, then a sync. */
    retry(uid?: string): Promise<void>;
  };
  /** Whether the record has local changes the server has not answered yet. */
  isPending(type: RecordType, uid: string): boolean;
  /** Asks for a round as a trigger would (the notification listener calls this). */
  requestSync(reason?: SyncReason): void;
  /** Adds a trigger source, active while started; returns its removal. */
  addTrigger(source: TriggerSource): () => void;
  close(): Promise<void>;
}

/** Compile-time check: a record type added to the domain without its collection here fails to build. */
const everyRecordTypeHasACollection: RecordType extends keyof SyncClient ? true : never = true;
void everyRecordTypeHasACollection;
