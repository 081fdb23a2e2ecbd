export * from './in-memory-feed-store.js';
