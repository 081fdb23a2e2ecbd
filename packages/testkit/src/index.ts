export * from './clocks.js';
export * from './seeded-random.js';
export * from './user-mutex.js';
export * from './in-memory-sync-store.js';
export * from './simulated-device.js';
export * from './arbitraries.js';
export * from './contract/index.js';
export * from './auth/index.js';
