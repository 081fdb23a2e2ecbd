export * from './rules/index.js';
export * from './ports/index.js';
export * from './cursor/index.js';
export * from './sync/index.js';
export * from './auth/index.js';
export * from './feeds/index.js';
export * from './maintenance/index.js';
export * from './reminders/index.js';
