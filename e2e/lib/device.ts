import type { StandInSmsGateway } from '@calsync/testkit';
import type { HttpClient } from './http.js';
import { RECORD_TYPES, type PullData, type PushData, type PushItem, type RecordType, type WireRecord } from './wire.js';

/** `data` of verify-otp. */
export interface SignInData {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly isNewUser: boolean;
  readonly user: { readonly id: number; readonly phone: string; readonly [k: string]: unknown };
  readonly device?: { readonly uid: string; readonly current: boolean; readonly [k: string]: unknown };
}

/** What the device keeps locally: records by type and uid, as the server last described them. */
export type LocalState = { [T in RecordType]: Map<string, Record<string, unknown>> };

/**
 * A minimal client that follows the client behaviour of docs/protocol.md over
 * real HTTP: bootstrap by a cursorless pull, an outbox of patches with baseVersion, push then
 * pull, returned versions kept as the next baseVersion, tombstones removed locally.
 */
export class E2eDevice {
  accessToken = '';
  refreshToken = '';
  cursor: string | undefined;
  readonly local: LocalState = { calendars: new Map(), events: new Map(), tasks: new Map(), reminders: new Map() };
  private outbox: { type: RecordType; item: PushItem }[] = [];

  constructor(
    private readonly http: HttpClient,
    readonly phone: string,
    readonly uid: string,
    readonly platform = 'web',
  ) {}

  /** send-otp, the code read at the stand-in gateway, then verify-otp with this device. */
  async signIn(gateway: StandInSmsGateway): Promise<SignInData> {
    await this.http.ok('POST', '/api/auth/send-otp', { body: { phone: this.phone, name: 'E2E' } });
    const otp = gateway.lastCode(this.phone);
    const data = await this.http.ok<SignInData>('POST', '/api/auth/verify-otp', {
      body: { phone: this.phone, otp, device: { uid: this.uid, platform: this.platform, name: `device ${this.uid}`, fcmToken: `fcm-${this.uid}` } },
    });
    this.accessToken = data.accessToken;
    this.refreshToken = data.refreshToken;
    return data;
  }

  /** A local write: merged into the local copy and queued with the version last seen as baseVersion. */
  upsert(type: RecordType, uid: string, fields: Readonly<Record<string, unknown>>): void {
    const current = this.local[type].get(uid);
    const baseVersion = typeof current?.version === 'string' ? current.version : null;
    this.local[type].set(uid, { ...current, ...fields, uid });
    this.outbox.push({ type, item: { ...fields, uid, op: 'upsert', baseVersion } });
  }

  /** A local delete: removed from the local copy and queued with the version last seen. */
  remove(type: RecordType, uid: string): void {
    const current = this.local[type].get(uid);
    const baseVersion = typeof current?.version === 'string' ? current.version : null;
    this.local[type].delete(uid);
    this.outbox.push({ type, item: { uid, op: 'delete', baseVersion } });
  }

  /** Number of queued mutations. */
  get pending(): number {
    return this.outbox.length;
  }

  /**
   * Pushes the outbox in one request (arrays in push order) and keeps each returned version as the
   * record's next baseVersion; every non-error result consumes its mutation (a conflict included).
   */
  async push(): Promise<PushData> {
    const body: Partial<Record<RecordType, PushItem[]>> = {};
    for (const { type, item } of this.outbox) (body[type] ??= []).push(item);
    const data = await this.http.ok<PushData>('POST', '/api/sync/push', { token: this.accessToken, body });
    const failed: typeof this.outbox = [];
    for (const type of RECORD_TYPES) {
      for (const result of data[type]) {
        if (result.status === 'error') {
          failed.push(...this.outbox.filter((o) => o.type === type && o.item.uid === result.uid));
          continue;
        }
        const local = this.local[type].get(result.uid);
        if (local && result.version !== null) local.version = result.version;
      }
    }
    this.outbox = failed;
    return data;
  }

  /** Pulls pages until hasMore is false; records replace local copies, tombstones are removed. */
  async pull(limit = 500): Promise<PullData[]> {
    const pages: PullData[] = [];
    for (;;) {
      const query = new URLSearchParams({ limit: String(limit) });
      if (this.cursor !== undefined) query.set('cursor', this.cursor);
      const page = await this.http.ok<PullData>('GET', `/api/sync/changes?${query}`, { token: this.accessToken });
      for (const type of RECORD_TYPES) {
        for (const record of page[type]) {
          if (record.deleted !== null) this.local[type].delete(record.uid);
          else this.local[type].set(record.uid, { ...record });
        }
      }
      this.cursor = page.nextCursor;
      pages.push(page);
      if (!page.hasMore) return pages;
    }
  }

  /** The local live records, per type, sorted by uid: comparable with a server snapshot. */
  snapshot(): Record<RecordType, Record<string, unknown>[]> {
    return liveSnapshot(this.local);
  }
}

/** Per type, the records of a local state sorted by uid. */
export function liveSnapshot(state: LocalState): Record<RecordType, Record<string, unknown>[]> {
  const sorted = (m: Map<string, Record<string, unknown>>): Record<string, unknown>[] =>
    [...m.values()].sort((a, b) => String(a.uid).localeCompare(String(b.uid)));
  return { calendars: sorted(state.calendars), events: sorted(state.events), tasks: sorted(state.tasks), reminders: sorted(state.reminders) };
}

/** Records of pages as a fresh local state (tombstones dropped), for comparing with a device. */
export function stateFromPages(pages: readonly PullData[]): LocalState {
  const state: LocalState = { calendars: new Map(), events: new Map(), tasks: new Map(), reminders: new Map() };
  for (const page of pages)
    for (const type of RECORD_TYPES)
      for (const record of page[type]) {
        if (record.deleted !== null) state[type].delete(record.uid);
        else state[type].set(record.uid, { ...record });
      }
  return state;
}

/** Every record of the pages, tombstones included. */
export function allRecords(pages: readonly PullData[]): WireRecord[] {
  return pages.flatMap((p) => RECORD_TYPES.flatMap((t) => [...p[t]]));
}
