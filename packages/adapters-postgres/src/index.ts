export * from './database.js';
export * from './schema.js';
export * from './migrate.js';
export { MIGRATIONS } from './migrations/index.js';
export * from './auth/index.js';
export * from './postgres-sync-store.js';
export * from './postgres-legacy-stats-store.js';
export * from './notify/postgres-change-feed.js';
export * from './notify/pglite-change-feed.js';
