// The rules a browser can run as well as the server: the record field tables and their validation,
// the reference and cascade rules, the default-calendar rule, the page limits, the error codes and
// the recurrence expander. Nothing here imports a Node built-in or server-only code (cursor codec,
// fingerprints, OTP, tokens, ports); a test bundles this entry for the browser to keep it so.
export * from '../records/index.js';
export * from '../calendar/index.js';
export * from '../errors.js';
export * from './references.js';
export * from './page-limits.js';
export * from './input-rules.js';
export * from './backoff.js';
