export * from './reminder-due.js';
export * from './reminder-scheduler.js';
