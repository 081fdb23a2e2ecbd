import { createHash } from 'node:crypto';

/** SHA-256 (hex) of a refresh token: what the store keeps, so a leaked table holds no usable token. */
export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
