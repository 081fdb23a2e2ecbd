/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits; what the protocol suggests
 * for record uids, since ids made on different devices then sort roughly by creation time.
 */
export function uuidv7(now: number = Date.now(), random: Uint8Array = globalThis.crypto.getRandomValues(new Uint8Array(10))): string {
  const b = new Uint8Array(16);
  let t = Math.floor(now);
  for (let i = 5; i >= 0; i--) {
    b[i] = t % 256;
    t = Math.floor(t / 256);
  }
  b[6] = 0x70 | (random[0]! & 0x0f);
  b[7] = random[1]!;
  b[8] = 0x80 | (random[2]! & 0x3f);
  for (let i = 9; i < 16; i++) b[i] = random[i - 6]!;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
