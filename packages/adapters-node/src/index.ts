// The domain's ports on Node's own technology (node:crypto, the wall clock, fast-jwt): no database,
// no HTTP framework. main.ts wires them.
export { SystemClock } from './system-clock.js';
export { CryptoRandom } from './crypto-random.js';
export { PRODUCTION_SCRYPT, ScryptPasswordHasher, type ScryptParams } from './scrypt-password-hasher.js';
export { FastJwtTokenSigner, REQUIRED_CLAIMS, type JwtSettings } from './fast-jwt-token-signer.js';
