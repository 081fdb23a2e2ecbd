export * from './occurrence.js';
export * from './zone.js';
export * from './until.js';
export * from './rule-expansion.js';
export * from './expand-occurrences.js';
export * from './occurrence-window.js';
export * from './occurrence-edits.js';
export * from './gap-start.js';
