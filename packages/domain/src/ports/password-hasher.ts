/**
 * A memory-hard password KDF (scrypt in production). Hashes are self-describing strings (they carry
 * the salt and parameters), so `verify` needs only the stored hash. Passwords are never truncated.
 */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Constant-time comparison; false (never a throw) for a malformed stored hash. */
  verify(password: string, storedHash: string): Promise<boolean>;
}
