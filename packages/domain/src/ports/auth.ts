// Ports of the sign-in part of the domain, one capability per file.
export * from './user-store.js';
export * from './auth-store.js';
export * from './sms-sender.js';
export * from './password-hasher.js';
export * from './token-signer.js';
