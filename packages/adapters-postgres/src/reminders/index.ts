export * from './postgres-reminder-store.js';
export * from './postgres-scheduler-lease.js';
