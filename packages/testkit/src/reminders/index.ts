export * from './in-memory-reminder-store.js';
export * from './in-memory-scheduler-lease.js';
