export * from './auth-service.js';
export * from './otp-service.js';
export * from './session-service.js';
export * from './session-cache.js';
export * from './dtos.js';
export * from './input-rules.js';
export * from './otp-code.js';
export * from './token-hash.js';
