/** The only source of randomness for the domain; production uses a CSPRNG. */
export interface Random {
  /** `length` cryptographically strong random bytes. */
  bytes(length: number): Uint8Array;
  /** A uniformly distributed integer in [0, maxExclusive), without modulo bias. */
  int(maxExclusive: number): number;
  /** A new random UUID (v4 or v7) string. */
  uuid(): string;
}
