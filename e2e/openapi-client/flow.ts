import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

// What a team that generates its client from our document writes: openapi-typescript types
// (api.d.ts, generated from /api-docs-json) and openapi-fetch. It must compile without a single
// cast: every field it reads is typed by the document alone.

/** The fields of a live event the flow reads back. */
type EventSeen = Pick<components['schemas']['Event'], 'uid' | 'title' | 'calendarUid' | 'version'>;

/** What the flow saw, for the test to check. */
export interface FlowResult {
  readonly isNewUser: boolean;
  readonly bootstrapCalendars: number;
  readonly pushed: readonly string[];
  readonly pulledEvent: EventSeen | undefined;
  readonly pulledTombstones: number;
  readonly conflictTitle: string | undefined;
  readonly restoredVersion: string | undefined;
  readonly refreshed: boolean;
}

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`no ${what}`);
  return value;
}

/** Sign-in, bootstrap, push of all four types, pull with the cursor, a conflict listed and restored, refresh. */
export async function runGeneratedClientFlow(baseUrl: string, phone: string, readCode: (phone: string) => string): Promise<FlowResult> {
  const api = createClient<paths>({ baseUrl });

  const sent = await api.POST('/api/auth/send-otp', { body: { phone } });
  if (sent.error) throw new Error(`send-otp: ${sent.error.error.code}`);
  const signIn = await api.POST('/api/auth/verify-otp', { body: { phone, otp: readCode(phone), device: { uid: 'generated-client', platform: 'node' } } });
  if (signIn.error) throw new Error(`verify-otp: ${signIn.error.error.code}`);
  const session = signIn.data.data;
  const auth = { authorization: `Bearer ${session.accessToken}` };

  const bootstrap = await api.GET('/api/sync/changes', { headers: auth, params: { query: { limit: 100 } } });
  if (bootstrap.error) throw new Error(`bootstrap: ${bootstrap.error.error.code}`);

  const pushed = await api.POST('/api/sync/push', {
    headers: auth,
    body: {
      calendars: [{ uid: 'gc-cal', op: 'upsert', baseVersion: null, name: 'Generated', color: '#112233' }],
      events: [{ uid: 'gc-ev', op: 'upsert', calendarUid: 'gc-cal', title: 'Planning', startTime: '2026-05-04T10:00:00.000Z', endTime: '2026-05-04T11:00:00.000Z' }],
      tasks: [{ uid: 'gc-task', op: 'upsert', title: 'Write notes', priority: 3 }],
      reminders: [{ uid: 'gc-rem', op: 'upsert', eventUid: 'gc-ev', minutesBefore: 15 }],
    },
  });
  if (pushed.error) throw new Error(`push: ${pushed.error.error.code}`);
  const results = [...pushed.data.data.calendars, ...pushed.data.data.events, ...pushed.data.data.tasks, ...pushed.data.data.reminders];
  const eventResult = need(pushed.data.data.events[0], 'event result');
  const eventVersion = eventResult.status === 'error' ? null : eventResult.version;

  const page = await api.GET('/api/sync/changes', { headers: auth, params: { query: { cursor: bootstrap.data.data.nextCursor } } });
  if (page.error) throw new Error(`pull: ${page.error.error.code}`);
  // openapi-fetch 0.17 drops a property whose type is exactly null (a live record's `deleted: null`)
  // from response types (upstream openapi-typescript issue 2717); `in` narrowing still reads it.
  // The generated component types themselves carry it.
  const isLive = (e: object): boolean => !('deleted' in e) || e.deleted === null;
  const pulledEvent = page.data.data.events.find((e) => e.uid === 'gc-ev' && isLive(e));
  const pulledTombstones = page.data.data.events.filter((e) => !isLive(e)).length;

  // An edit from a stale version: the server keeps its copy and records the loser.
  const stale = await api.POST('/api/sync/push', { headers: auth, body: { events: [{ uid: 'gc-ev', op: 'upsert', baseVersion: '1', title: 'Planning (moved)' }] } });
  if (stale.error) throw new Error(`stale push: ${stale.error.error.code}`);

  const conflicts = await api.GET('/api/sync/conflicts', { headers: auth, params: { query: { afterId: 0, limit: 10 } } });
  if (conflicts.error) throw new Error(`conflicts: ${conflicts.error.error.code}`);
  const conflict = conflicts.data.data.conflicts.find((c) => c.entityUid === 'gc-ev');
  const conflictTitle = conflict?.entityType === 'EVENT' ? conflict.loserSnapshot.title : undefined;
  // nextAfterId (a number) goes straight back as afterId.
  const next = conflicts.data.data.nextAfterId;
  if (next !== null) await api.GET('/api/sync/conflicts', { headers: auth, params: { query: { afterId: next } } });

  const restored = conflict
    ? await api.POST('/api/sync/conflicts/{id}/resolve', { headers: auth, params: { path: { id: conflict.conflictId } }, body: { action: 'restore' } })
    : undefined;
  if (restored?.error) throw new Error(`resolve: ${restored.error.error.code}`);

  const refreshed = await api.POST('/api/auth/refresh', { body: { refreshToken: session.refreshToken, deviceUid: 'generated-client' } });
  if (refreshed.error) throw new Error(`refresh: ${refreshed.error.error.code}`);

  return {
    isNewUser: session.isNewUser,
    bootstrapCalendars: bootstrap.data.data.calendars.length,
    pushed: results.map((r) => `${r.uid}:${r.status}`),
    pulledEvent: pulledEvent && eventVersion !== null && pulledEvent.version === eventVersion ? pulledEvent : undefined,
    pulledTombstones,
    conflictTitle,
    restoredVersion: restored?.data?.data.record?.version,
    refreshed: refreshed.data.data.refreshToken !== session.refreshToken,
  };
}
