export * from './postgres-user-store.js';
export * from './postgres-device-store.js';
export * from './postgres-session-store.js';
export * from './postgres-otp-store.js';
export * from './postgres-auth-stores.js';
export { withAuthTables, type AuthDB } from './auth-tables.js';
