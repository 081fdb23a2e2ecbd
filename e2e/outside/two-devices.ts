// An app outside the repository, against the real server: two devices of one user, typed records,
// a conflict both devices hear of, a restore, and one occurrence of a series edited.
import { createInterface } from 'node:readline/promises';
import { createSyncClient, MemoryStore, type SyncClient, type WireConflict } from '@calsync/client';

const baseUrl = process.env.CALSYNC_URL!;
const phone = process.env.CALSYNC_PHONE!;
const device = (name: string): SyncClient => createSyncClient({ baseUrl, store: new MemoryStore(), device: { platform: 'node', name }, notifications: false });
const a = device('laptop');
const b = device('phone');
await a.open();
await b.open();
await a.auth.sendOtp(phone);
const prompt = createInterface({ input: process.stdin, output: process.stdout });
await a.auth.verifyOtp(phone, await prompt.question('Code from the SMS: '));
prompt.close();
await a.profile.update({ email: 'outside@example.com', password: 'correct horse battery' });
await b.auth.login('outside@example.com', 'correct horse battery');

// Typed fields: these two writes must not compile (never called).
export const misuses = (): unknown[] => [
  // @ts-expect-error `titel` is not a field of an event
  a.events.put({ titel: 'x' }),
  // @ts-expect-error a title is a string
  a.events.put({ title: 42 }),
];

const calendarUid = a.calendars.list().find((c) => c.isDefault)!.uid;
const uid = await a.events.put({ calendarUid, title: 'Review', location: 'Room 1', startTime: '2030-03-04T10:00:00Z', endTime: '2030-03-04T11:00:00Z' });
await a.sync();
await b.sync();
const seenOnB: string = b.events.get(uid)!.title;

// Both edit the title offline: A pushes first, B's push loses to it and becomes a conflict.
const heard: Record<string, WireConflict[]> = { a: [], b: [] };
a.conflicts.subscribe((c) => heard.a!.push(...c));
b.conflicts.subscribe((c) => heard.b!.push(...c));
await a.events.put({ uid, title: 'Review (A)' });
await b.events.put({ uid, title: 'Review (B)' });
await a.sync();
await b.sync();
await a.sync();
const afterConflict = { a: a.events.get(uid)!.title, b: b.events.get(uid)!.title };
const [conflict] = await a.conflicts.list();
await a.conflicts.restore(conflict!.conflictId);
await a.sync();
await b.sync();
const afterRestore = { a: a.events.get(uid)!.title, b: b.events.get(uid)!.title };

// A weekly series; the second occurrence moves to another room on A; B sees it.
const series = await a.events.put({ calendarUid, title: 'Standup', startTime: '2030-01-07T09:00:00Z', endTime: '2030-01-07T09:15:00Z', rrule: 'FREQ=WEEKLY;COUNT=4' });
await a.events.editOccurrence(series, '2030-01-14T09:00:00.000Z', { location: 'Garden' }, { scope: 'this' });
await a.sync();
await b.sync();
const january = b.occurrences({ from: '2030-01-01T00:00:00Z', to: '2030-02-01T00:00:00Z', tz: 'UTC' });
const locations = january.occurrences.map((o) => b.events.get(o.eventUid)?.location ?? null);

console.log(JSON.stringify({
  seenOnB,
  afterConflict,
  conflict: { entityType: conflict!.entityType, loserTitle: conflict!.entityType === 'EVENT' ? conflict!.loserSnapshot.title : null },
  heard: { a: heard.a!.length, b: heard.b!.length },
  afterRestore,
  occurrences: january.occurrences.length,
  locations,
  pending: [a.status.pending, b.status.pending],
}));
await a.close();
await b.close();
