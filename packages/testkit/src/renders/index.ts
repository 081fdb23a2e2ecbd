export * from './in-memory-render-store.js';
