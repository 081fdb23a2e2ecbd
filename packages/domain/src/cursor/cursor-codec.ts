import { createHmac, timingSafeEqual } from 'node:crypto';
import { MAX_VERSION, VERSION_PATTERN } from '../records/field-validation.js';
import { RECORD_TYPES, type RecordType } from '../records/types.js';

/** Per-type watermarks: the version up to which each record type has been read. */
export type Watermarks = Readonly<Record<RecordType, bigint>>;

/** What a pull starts from: the cursor's watermarks, or all zeros and `reset` when it was unusable. */
export interface DecodedCursor {
  readonly reset: boolean;
  readonly watermarks: Watermarks;
}

/** Watermarks of a full snapshot. */
export const ZERO_WATERMARKS: Watermarks = { calendars: 0n, events: 0n, tasks: 0n, reminders: 0n };

const CURSOR_VERSION = 1;
const B64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Signs and verifies sync cursors (docs/protocol.md): `base64url(JSON payload) + "." +
 * base64url(HMAC-SHA256(secret, the base64url payload string))`, no padding; payload
 * `{v:1, userId, calendars, events, tasks, reminders}` with decimal-string watermarks.
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
    const payload = {
      v: CURSOR_VERSION,
      userId,
      calendars: watermarks.calendars.toString(),
      events: watermarks.events.toString(),
      tasks: watermarks.tasks.toString(),
      reminders: watermarks.reminders.toString(),
    };
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
    // An old cursor without the tasks watermark is accepted with tasks read from zero (docs/protocol.md, "Cursor").
    const raw = type === 'tasks' && !('tasks' in p) ? '0' : p[type];
    if (typeof raw !== 'string' || !VERSION_PATTERN.test(raw)) return null;
    const value = BigInt(raw);
    if (value > MAX_VERSION) return null;
    out[type] = value;
  }
  return out as Watermarks;
}
