// The wire contract of the HTTP API, shared by the server (validation, OpenAPI) and the client SDK
// (types, optional validation): schemas, their static types, the operations table with the error
// codes each answers, and the examples the document shows. TypeBox and the domain only.
export * from './auth-schemas.js';
export * from './envelope-schemas.js';
export * from './examples.js';
export * from './http-status.js';
export * from './interop-schemas.js';
export * from './occurrence-schemas.js';
export * from './operations.js';
export * from './record-schemas.js';
export * from './sync-schemas.js';
export type * from './wire-types.js';
export * from './stream-schemas.js';
