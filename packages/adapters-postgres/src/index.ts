export * from './database.js';
export * from './schema.js';
export * from './migrate.js';
export { MIGRATIONS } from './migrations/index.js';
export * from './testing.js';
export * from './auth/index.js';
