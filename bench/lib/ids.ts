import { randomUUID } from 'node:crypto';

/** A record uid in the wire form (letters, digits, '-' and '_'). */
export function uid(prefix = ''): string {
  return `${prefix}${randomUUID()}`;
}

/** An event create item in calendar `calendarUid`. */
export function newEvent(calendarUid: string, i: number) {
  const start = new Date(Date.UTC(2026, 0, 1) + i * 3_600_000);
  return {
    uid: uid('ev-'),
    op: 'upsert' as const,
    baseVersion: null,
    calendarUid,
    title: `Event ${i}`,
    startTime: start.toISOString(),
    endTime: new Date(start.getTime() + 1_800_000).toISOString(),
  };
}
