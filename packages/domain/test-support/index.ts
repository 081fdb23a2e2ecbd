// The recurrence oracles and the series generator, for the property tests of the packages that read or write series.
export * from './python-oracle.js';
export * from './series-arbitrary.js';
export * from './ical-oracle.js';
