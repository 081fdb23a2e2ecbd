import { sha256 } from '@noble/hashes/sha2.js';
import { UID_PATTERN } from '@calsync/domain/records';

/** base64url without padding. */
function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * The record uid of an iCalendar UID or a CalDAV resource name: the text itself when it is a
 * record uid already (letters, digits, `-`, `_`, at most 128), else `ics-` and 43 characters of
 * its SHA-256. The same text always gives the same uid, in a browser and on the server, so
 * importing a file twice, or a calendar app putting one resource twice, names one record.
 */
export function recordUidFor(text: string): string {
  if (UID_PATTERN.test(text)) return text;
  return `ics-${base64url(sha256(new TextEncoder().encode(text)))}`;
}

/** The record uid of the override of `originalStart` (its RECURRENCE-ID) of the series `seriesUid`. */
export function overrideUidFor(seriesUid: string, originalStart: string): string {
  return recordUidFor(`${seriesUid}/${originalStart}`);
}

/** The record uid of an alarm of `ownerUid` (an event or task), named by `key` (its UID or X-WR-ALARMUID, else its position). */
export function alarmUidFor(ownerUid: string, key: string): string {
  return recordUidFor(`${ownerUid}/alarm/${key}`);
}
