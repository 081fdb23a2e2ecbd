import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseVersion } from '../records/field-validation.js';
import { perRecordType } from '../records/per-record-type.js';
import { RECORD_TYPES, type RecordType } from '../records/types.js';

/** Per-type watermarks: the version up to which each record type has been read. */
export type Watermarks = Readonly<Record<RecordType, bigint>>;

/** What a pull starts from: the cursor's watermarks, or all zeros and `reset` when it was unusable. */
export interface DecodedCursor {
  readonly reset: boolean;
  readonly watermarks: Watermarks;
}

/** Watermarks of a full snapshot. */
export const ZERO_WATERMARKS: Watermarks = perRecordType(() => 0n);

const CURSOR_VERSION = 1;
const B64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Signs and verifies sync cursors (docs/protocol.md): `base64url(JSON payload) + "." +
 * base64url(HMAC-SHA256(secret, the base64url payload string))`, no padding; payload
 * `{v:1, userId, <one key per record type>}` with decimal-string watermarks, its keys taken from
 * RECORD_TYPES. A signed cursor without a type's key was made before that type existed (tasks,
 * in the spec; any type added later): that type is read from zero, the others go on.
 * Decoding never throws: anything unusable is a reset.
 */
export class CursorCodec {
  readonly #secret: Buffer;

  constructor(secret: string | Uint8Array) {
    this.#secret = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
    if (this.#secret.length === 0) throw new Error('cursor secret must not be empty');
  }

  /** A signed cursor for these watermarks, owned by `userId`. */
  encode(userId: number, watermarks: Watermarks): string {
    const payload = { v: CURSOR_VERSION, userId, ...perRecordType((type) => watermarks[type].toString()) };
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    return `${body}.${this.#sign(body).toString('base64url')}`;
  }

  /** The watermarks of `cursor` for `userId`, or a reset for a missing, forged, foreign or malformed cursor. */
  decode(cursor: string | undefined, userId: number): DecodedCursor {
    const reset: DecodedCursor = { reset: true, watermarks: ZERO_WATERMARKS };
    if (typeof cursor !== 'string') return reset;
    const parts = cursor.split('.');
    if (parts.length !== 2) return reset;
    const [body, signature] = parts as [string, string];
    if (!B64URL.test(body) || !B64URL.test(signature)) return reset;
    const expected = this.#sign(body);
    const given = Buffer.from(signature, 'base64url');
    // Only the canonical encoding is accepted (base64url's spare bits would otherwise give
    // several spellings of one signature).
    if (given.length !== expected.length || given.toString('base64url') !== signature) return reset;
    if (!timingSafeEqual(given, expected)) return reset;
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      return reset;
    }
    const watermarks = readPayload(payload, userId);
    return watermarks ? { reset: false, watermarks } : reset;
  }

  #sign(body: string): Buffer {
    return createHmac('sha256', this.#secret).update(body, 'utf8').digest();
  }
}

function readPayload(payload: unknown, userId: number): Watermarks | null {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return null;
  const p = payload as Record<string, unknown>;
  if (p.v !== CURSOR_VERSION || p.userId !== userId) return null;
  const out: Record<string, bigint> = {};
  for (const type of RECORD_TYPES) {
    // A cursor from before this type existed has no key for it: read the type from zero (docs/protocol.md, "Cursor", for tasks).
    const raw = type in p ? p[type] : '0';
    const value = parseVersion(raw);
    if (value === null) return null;
    out[type] = value;
  }
  return out as Watermarks;
}
