// Ports of the sign-in part of the domain, one capability per file.
export * from './user-store.js';
export * from './device-store.js';
export * from './session-store.js';
export * from './otp-store.js';
export * from './sms-sender.js';
export * from './password-hasher.js';
export * from './token-signer.js';
