import { createSyncClient, MemoryStore, type SyncClient } from '@calsync/client';
import type { StandInSmsGateway } from '@calsync/testkit';
import { fetch as undiciFetch } from 'undici';
import { agent } from './client.js';

/** One pushed item and the answer it got, as seen on the wire. */
export interface PushedItem {
  readonly uid: string;
  readonly baseVersion: string | null;
  readonly title?: unknown;
  readonly status: string;
  readonly version: string | null;
}

/** fetch over the benchmark's shared keep-alive agent; `onPush` sees every push's event items and answers. */
export function agentFetch(onPush?: (items: PushedItem[]) => void): typeof fetch {
  return (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const res = await undiciFetch(String(input), { ...(init as object), dispatcher: agent });
    if (!onPush || !String(input).endsWith('/api/sync/push') || res.status !== 200) return res;
    const text = await res.text();
    const sent = (JSON.parse(String(init?.body ?? '{}')) as { events?: { uid: string; baseVersion: string | null; title?: unknown }[] }).events ?? [];
    const answered = (JSON.parse(text) as { data: { events: { status: string; version?: string | null }[] } }).data.events;
    onPush(sent.map((item, i) => ({ uid: item.uid, baseVersion: item.baseVersion, title: item.title, status: answered[i]!.status, version: answered[i]!.version ?? null })));
    return new Response(text, { status: res.status, headers: res.headers as unknown as Headers });
  }) as unknown as typeof fetch;
}

/**
 * A benchmark device: the SDK (@calsync/client) on a memory store, signed in through the real
 * OTP flow (the code read at the stand-in gateway), bootstrapped by its first pull.
 */
export async function signedInDevice(baseUrl: string, gateway: StandInSmsGateway, phone: string, name: string, onPush?: (items: PushedItem[]) => void): Promise<SyncClient> {
  const client = createSyncClient({ baseUrl, store: new MemoryStore(), device: { platform: 'bench', name }, fetch: agentFetch(onPush), pageSize: 1000 });
  await client.open();
  await client.auth.sendOtp(phone);
  await client.auth.verifyOtp(phone, gateway.lastCode(phone));
  return client;
}
