export * from './types.js';
export * from './field-tables.js';
