import { runFeedStoreContract } from './feed-store-contract.js';
import { InMemoryFeedStore } from './in-memory-feed-store.js';

let nextUser = 1;
runFeedStoreContract('InMemoryFeedStore', async () => ({ feeds: new InMemoryFeedStore(), createUser: async () => nextUser++, close: async () => undefined }));
