// Public surface of @calsync/client: the client, its stores, and the types an app meets.
export { createSyncClient, type FailedItem, type SyncClient } from './client.js';
export type { SyncClientOptions } from './client-options.js';
export type { ClientAuth } from './auth.js';
export type { Collection, LocalRecord, PutInput } from './collection.js';
export type { OccurrenceOperations, OccurrenceOptions, OccurrencesQuery } from './series.js';
export type { ImportIcsOptions, ImportIcsResult } from './import-ics.js';
export type { Occurrence, OccurrencePage, OccurrenceScope } from '@calsync/domain/calendar';
export type { CalendarFields, EventFields, ReminderFields, TaskFields } from './records.js';
export type { SyncErrorInfo, SyncStatus } from './status.js';
export type { SyncReason } from './engine/sync-runner.js';
export type { TriggerSource } from './triggers.js';
export { ApiError, type ApiErrorKind } from './http/api-error.js';
export { LocalValidationError } from './validation.js';
export { RecordDeletedError } from './engine/outbox.js';
export { MemoryStore } from './store/memory-store.js';
export { IndexedDbStore, type IndexedDbStoreOptions } from './store/indexed-db-store.js';
export type { LocalStore, MetaValue, OutboxError, OutboxItem, SentPayload, StoreContents, StoredRecord, StoreWrite } from './store/local-store.js';
export type { WireConflict, WireDevice, WireProfileUpdate, WireResolveResponse, WireSignIn, WireUser } from './wire.js';
