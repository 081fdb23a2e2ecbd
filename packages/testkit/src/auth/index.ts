export * from './in-memory-user-store.js';
export * from './in-memory-auth-store.js';
export * from './capturing-sms-sender.js';
export * from './stand-in-sms-gateway.js';
export * from './fake-token-signer.js';
export * from './test-support.js';
export * from './auth-store-contract.js';
