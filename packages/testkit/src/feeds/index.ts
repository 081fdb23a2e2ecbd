export * from './in-memory-feed-store.js';
export * from './feed-store-contract.js';
