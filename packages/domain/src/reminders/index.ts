export * from './reminder-due.js';
export * from './reminder-scheduler.js';
export * from './conflict-alerts.js';
