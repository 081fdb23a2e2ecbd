import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { IndexedDbStore } from './indexed-db-store.js';
import { MemoryStore } from './memory-store.js';
import { runLocalStoreContract } from '../../test-support/local-store-contract.js';

runLocalStoreContract('MemoryStore', () => {
  const store = new MemoryStore();
  return { store, reopen: () => store };
});

let n = 0;
runLocalStoreContract('IndexedDbStore over fake-indexeddb', () => {
  const indexedDB = new IDBFactory();
  const name = `calsync-contract-${n++}`;
  return { store: new IndexedDbStore(name, { indexedDB, IDBKeyRange }), reopen: () => new IndexedDbStore(name, { indexedDB, IDBKeyRange }) };
});
