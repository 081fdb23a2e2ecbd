import { runRenderStoreContract } from './render-store-contract.js';
import { InMemoryRenderStore } from './in-memory-render-store.js';

let nextUser = 1;
runRenderStoreContract('InMemoryRenderStore', async () => ({ renders: new InMemoryRenderStore(), createUser: async () => nextUser++, close: async () => undefined }));
