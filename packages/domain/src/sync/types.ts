import type { CollectionVersions, ObjectChanges, ObjectListing, ObjectRows, ObjectScope } from '../ports/sync-store.js';
import type { OccurrencePage, OccurrenceWindow } from '../calendar/occurrence.js';
import type { ItemErrorCode } from '../records/item-error.js';
import type { EntityType, RecordType, WireRecord } from '../records/types.js';

/** One pushed item after schema validation. `fields` holds only the keys the client sent (a patch). */
export interface PushItem {
  readonly uid: string;
  readonly op: 'upsert' | 'delete';
  /** Decimal string of the last version the client saw, or null. */
  readonly baseVersion: string | null;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** A push request: four optional arrays, applied in this order. */
export type PushChangeset = Partial<Record<RecordType, readonly PushItem[]>>;

/** Stable codes of per-item push errors (docs/protocol.md); defined beside `ItemError` in records. */
export type { ItemErrorCode } from '../records/item-error.js';

/** The result of one pushed item, exactly as it goes on the wire. */
export type ItemResult =
  | {
      readonly uid: string;
      readonly status: 'created' | 'updated' | 'deleted' | 'conflict';
      readonly id?: number;
      readonly version: string | null;
      readonly conflictId?: number;
    }
  | {
      readonly uid: string;
      readonly status: 'error';
      readonly error: { readonly code: ItemErrorCode; readonly message: string; readonly retryable: boolean };
    };

/** A conflict record on the wire. */
export interface ConflictDto {
  readonly conflictId: number;
  readonly entityType: EntityType;
  readonly entityUid: string;
  readonly winnerVersion: string;
  readonly loserSnapshot: WireRecord;
  readonly createdAt: string;
  readonly resolvedAt: string | null;
}

/** `data` of POST /api/sync/push. */
export type PushResponse = Record<RecordType, ItemResult[]> & { readonly conflicts: ConflictDto[] };

/**
 * The fields of a pull page besides its records, the same in `PullResponse` and
 * `EncodedPullResponse`: what decodes, encodes and names a page (its body and ETag) carries them
 * over as they are, in this order.
 */
export interface PullPageFields {
  readonly cursorReset: boolean;
  readonly nextCursor: string;
  readonly hasMore: boolean;
  /** The greatest conflictId among the user's unresolved conflicts at the pull's bound; null when none. */
  readonly newestConflictId: number | null;
}

/** `data` of GET /api/sync/changes. */
export type PullResponse = Record<RecordType, WireRecord[]> & PullPageFields;

/**
 * A pull page with each type's records as the JSON texts of their wire records
 * (`EncodedChanges.wire`), as the store read them: what HTTP sends without parsing and re-encoding
 * every record. `decodePull` turns it into the `PullResponse` it stands for.
 */
export interface EncodedPullResponse extends PullPageFields {
  readonly records: Readonly<Record<RecordType, readonly string[]>>;
}

/** `data` of GET /api/sync/conflicts. */
export interface ConflictPage {
  readonly conflicts: ConflictDto[];
  readonly hasMore: boolean;
  readonly nextAfterId: number | null;
}

/** `data` of POST /api/sync/conflicts/:id/resolve. */
export interface ResolveResponse {
  readonly conflict: ConflictDto;
  readonly record: { readonly entityType: EntityType; readonly uid: string; readonly version: string } | null;
}

/** What the HTTP layer needs of the sync engine (implemented by `SyncService`). */
export interface SyncApi {
  /** `deviceUid`: the device that pushes (not notified of its own change); null without a device. */
  push(userId: number, changeset: PushChangeset, deviceUid?: string | null): Promise<PushResponse>;
  pull(userId: number, query: { readonly cursor?: string; readonly limit?: number }): Promise<PullResponse>;
  /** The same page as `pull`, each record as its JSON text (what the HTTP route sends). Optional: without it, the route encodes `pull`'s answer. */
  pullEncoded?(userId: number, query: { readonly cursor?: string; readonly limit?: number }): Promise<EncodedPullResponse>;
  listConflicts(userId: number, query: { readonly afterId?: number; readonly limit?: number }): Promise<ConflictPage>;
  resolveConflict(userId: number, conflictId: number, action: 'restore' | 'dismiss', deviceUid?: string | null): Promise<ResolveResponse>;
  /** The user's newest change version (0n when none). */
  newestVersion(userId: number): Promise<bigint>;
  /** The occurrences of the user's events in a window (docs/protocol.md, "Occurrences"); VALIDATION_ERROR for a bad window. */
  occurrences(userId: number, query: OccurrenceQuery): Promise<OccurrencePage>;
  /** The rows of the user's iCalendar objects in a scope (CalDAV, feeds), tombstones included, as committed (`SyncStore.readObjects`: no user lock). */
  readObjects(userId: number, scope: ObjectScope, rootUids?: readonly string[]): Promise<ObjectRows>;
  /** The objects of a scope changed after a version (`SyncStore.readObjectsChangedSince`). Optional: without it, CalDAV reads the scope and filters. */
  readObjectsChangedSince?(userId: number, scope: ObjectScope, since: bigint): Promise<ObjectChanges>;
  /** Each object of a scope without its rows (`SyncStore.readObjectListing`). Optional: without it, CalDAV reads the scope. */
  readObjectListing?(userId: number, scope: ObjectScope, extrasHolding: string): Promise<ObjectListing>;
  /** Every collection's version at once (`SyncStore.readCollectionVersions`). Optional: without it, CalDAV reads each collection. */
  readCollectionVersions?(userId: number): Promise<CollectionVersions>;
}

/** What `SyncApi.occurrences` is asked: the window, the viewer's zone, optionally some calendars. */
export type OccurrenceQuery = OccurrenceWindow;
