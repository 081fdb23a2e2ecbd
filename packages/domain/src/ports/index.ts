export * from './clock.js';
export * from './random.js';
export * from './sync-store.js';
export * from './legacy-stats-store.js';
export * from './auth.js';
export * from './change-feed.js';
export * from './feed-store.js';
export * from './retention-store.js';
