import type { SyncStore, SyncUnitOfWork } from '@calsync/domain';

/**
 * A `SyncStore` that hands every call to `inner`: the base of test stand-ins that change one thing
 * (how a unit of work behaves, or what is counted) and leave the lock-free reads as they are.
 */
export class ForwardingSyncStore<S extends SyncStore = SyncStore> implements SyncStore {
  constructor(readonly inner: S) {}

  inUserTransaction<T>(userId: number, work: (uow: SyncUnitOfWork) => Promise<T>): Promise<T> {
    return this.inner.inUserTransaction(userId, work);
  }

  readChangesSince: SyncStore['readChangesSince'] = (...args) => this.inner.readChangesSince(...args);
  readObjects: SyncStore['readObjects'] = (...args) => this.inner.readObjects(...args);
  readObjectsChangedSince: SyncStore['readObjectsChangedSince'] = (...args) => this.inner.readObjectsChangedSince(...args);
  readCollectionVersions: SyncStore['readCollectionVersions'] = (...args) => this.inner.readCollectionVersions(...args);
  readObjectListing: SyncStore['readObjectListing'] = (...args) => this.inner.readObjectListing(...args);
  readEventWindow: SyncStore['readEventWindow'] = (...args) => this.inner.readEventWindow(...args);
  listUnresolvedConflicts: SyncStore['listUnresolvedConflicts'] = (...args) => this.inner.listUnresolvedConflicts(...args);
  newestVersion: SyncStore['newestVersion'] = (...args) => this.inner.newestVersion(...args);
}
