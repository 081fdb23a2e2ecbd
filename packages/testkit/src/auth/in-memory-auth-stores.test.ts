import { inMemoryAuthStores } from './in-memory-auth-stores.js';
import type { OpenAuthStores } from './auth-contract-fixtures.js';
import { runDeviceStoreContract } from './device-store-contract.js';
import { runOtpStoreContract } from './otp-store-contract.js';
import { runSessionStoreContract } from './session-store-contract.js';
import { runUserStoreContract } from './user-store-contract.js';

const open: OpenAuthStores = async () => ({ ...inMemoryAuthStores(), close: async () => {} });

runUserStoreContract('in memory', open);
runDeviceStoreContract('in memory', open);
runSessionStoreContract('in memory', open);
runOtpStoreContract('in memory', open);
