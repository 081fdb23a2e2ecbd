export * from './types.js';
export * from './field-tables.js';
export * from './item-error.js';
export * from './datetime.js';
export * from './rrule.js';
export * from './field-validation.js';
export * from './record-state.js';
export * from './snapshot.js';
