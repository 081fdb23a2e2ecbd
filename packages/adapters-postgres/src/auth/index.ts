export * from './postgres-user-store.js';
export * from './postgres-auth-store.js';
export * from './scrypt-password-hasher.js';
export { withAuthTables, type AuthDB } from './auth-tables.js';
