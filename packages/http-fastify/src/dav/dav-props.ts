import type { RecordRow } from '@calsync/domain';
import { el, NS, qname, type OutElement, type XmlNode } from './dav-xml.js';

const d = (local: string) => qname(NS.dav, local);
const c = (local: string) => qname(NS.caldav, local);

/** A property's value as written: an element's content (text or children); null when the resource does not have it. */
export type PropValue = string | readonly OutElement[] | null;

/** The properties of one resource, by qualified name. */
export type Props = ReadonlyMap<string, PropValue>;

/**
 * The collection of the user's tasks (VTODO). Every other collection is a calendar (VEVENT), keyed
 * by its uid. The key has a character no record uid has, so a calendar may be named `tasks` too.
 */
export const TASKS = ':tasks';

/** The path segment of the tasks collection. */
const TASKS_SEGMENT = 'tasks';

/** The path segment of the calendar whose uid is `tasks` (a '.' is never in a uid, so no other calendar has it). */
const TASKS_CALENDAR_SEGMENT = 'tasks.calendar';

/** The collection a path segment names: `TASKS`, or a calendar's uid. */
export function collectionOfSegment(segment: string): string {
  if (segment === TASKS_SEGMENT) return TASKS;
  return segment === TASKS_CALENDAR_SEGMENT ? TASKS_SEGMENT : segment;
}

/** The path segment of a collection (the inverse of `collectionOfSegment`). */
export function segmentOfCollection(collection: string): string {
  if (collection === TASKS) return TASKS_SEGMENT;
  return collection === TASKS_SEGMENT ? TASKS_CALENDAR_SEGMENT : collection;
}

/** Paths of the DAV tree of a user. */
export function paths(userId: number) {
  const home = `/dav/calendars/${userId}/`;
  const collection = (key: string) => `${home}${encodeURIComponent(segmentOfCollection(key))}/`;
  return {
    principal: `/dav/principals/${userId}/`,
    home,
    collection,
    resource: (key: string, name: string) => `${collection(key)}${encodeURIComponent(name)}`,
  };
}

const PRIVILEGES: readonly OutElement[] = ['read', 'write', 'write-properties', 'write-content', 'bind', 'unbind', 'read-current-user-privilege-set'].map((p) =>
  el(d('privilege'), [el(d(p))]),
);

/** The last user's `common` (a multistatus lists many resources of one user). */
let lastCommon: { userId: number; props: ReadonlyArray<readonly [string, PropValue]> } | null = null;

/** Properties every resource of the user answers. */
function common(userId: number): ReadonlyArray<readonly [string, PropValue]> {
  if (lastCommon?.userId === userId) return lastCommon.props;
  const p = paths(userId);
  const props: ReadonlyArray<readonly [string, PropValue]> = [
    [d('current-user-principal'), [el(d('href'), p.principal)]],
    [d('owner'), [el(d('href'), p.principal)]],
    [d('current-user-privilege-set'), PRIVILEGES],
  ];
  lastCommon = { userId, props };
  return props;
}

/** The DAV root and the principal: where the calendars are (RFC 6764 discovery, RFC 4791 §6.2.1). */
export function principalProps(userId: number, displayName: string): Props {
  const p = paths(userId);
  return new Map<string, PropValue>([
    ...common(userId),
    [d('resourcetype'), [el(d('principal')), el(d('collection'))]],
    [d('displayname'), displayName],
    [d('principal-URL'), [el(d('href'), p.principal)]],
    [c('calendar-home-set'), [el(d('href'), p.home)]],
    [c('calendar-user-address-set'), [el(d('href'), p.principal)]],
  ]);
}

/** The calendar home: a plain collection holding the calendars and the tasks. */
export function homeProps(userId: number): Props {
  return new Map<string, PropValue>([...common(userId), [d('resourcetype'), [el(d('collection'))]], [d('displayname'), 'Calendars']]);
}

const REPORTS: readonly OutElement[] = [c('calendar-query'), c('calendar-multiget'), d('sync-collection')].map((r) =>
  el(d('supported-report'), [el(d('report'), [el(r)])]),
);

/** A calendar collection (VEVENT) or the tasks collection (VTODO). */
export function collectionProps(userId: number, calendar: RecordRow | null, syncVersion: bigint): Props {
  const component = calendar === null ? 'VTODO' : 'VEVENT';
  const color = calendar !== null && typeof calendar.fields.color === 'string' ? calendar.fields.color : null;
  return new Map<string, PropValue>([
    ...common(userId),
    [d('resourcetype'), [el(d('collection')), el(c('calendar'))]],
    [d('displayname'), calendar === null ? 'Tasks' : String(calendar.fields.name)],
    [qname(NS.apple, 'calendar-color'), color],
    [c('supported-calendar-component-set'), [el(c('comp'), [], { name: component })]],
    [c('supported-calendar-data'), [el(c('calendar-data'), [], { 'content-type': 'text/calendar', version: '2.0' })]],
    [qname(NS.cs, 'getctag'), String(syncVersion)],
    [d('sync-token'), syncToken(syncVersion)],
    [d('supported-report-set'), REPORTS],
    [c('calendar-timezone'), null],
  ]);
}

/** A calendar object resource: its ETag and type, and its text when `data` is given. */
export function objectProps(userId: number, etag: string, component: 'VEVENT' | 'VTODO', data: string | null): Props {
  return new Map<string, PropValue>([
    ...common(userId),
    [d('resourcetype'), []],
    [d('getetag'), etag],
    [d('getcontenttype'), `text/calendar; charset=utf-8; component=${component.toLowerCase()}`],
    [c('calendar-data'), data],
  ]);
}

/** The sync token of a collection version (RFC 6578: a URI). */
export function syncToken(version: bigint): string {
  return `urn:calsync:sync:${version}`;
}

/** The version a sync token names, or null when it is not one of ours. */
export function versionOfSyncToken(token: string): bigint | null {
  const m = /^urn:calsync:sync:(\d{1,19})$/.exec(token.trim());
  return m ? BigInt(m[1]!) : null;
}

/** Which properties a PROPFIND or REPORT asks for: named ones, all of them, or their names. */
export type PropRequest = { readonly kind: 'prop'; readonly names: readonly string[] } | { readonly kind: 'allprop' } | { readonly kind: 'propname' };

/** The properties asked for by a `prop` / `allprop` / `propname` element (allprop when absent, as RFC 4918 §9.1 says). */
export function propRequestOf(node: XmlNode | undefined): PropRequest {
  const prop = node?.children.find((x) => x.name === d('prop'));
  if (prop !== undefined) return { kind: 'prop', names: prop.children.map((x) => x.name) };
  if (node?.children.some((x) => x.name === d('propname'))) return { kind: 'propname' };
  return { kind: 'allprop' };
}

/** The properties allprop leaves out unless named (calendar-data is large). */
const NOT_IN_ALLPROP = new Set([c('calendar-data'), d('current-user-privilege-set'), d('supported-report-set')]);

/** The names and status elements every response writes (elements are never changed: one of each serves every response). */
const RESPONSE = d('response');
const HREF = d('href');
const PROPSTAT = d('propstat');
const PROP = d('prop');
const STATUS_OK = el(d('status'), 'HTTP/1.1 200 OK');
const STATUS_NOT_FOUND = el(d('status'), 'HTTP/1.1 404 Not Found');

/** One `response` of a multistatus: the href, and the asked properties split into found (200) and not found (404). */
export function propResponse(href: string, props: Props, request: PropRequest): OutElement {
  const found: OutElement[] = [];
  const missing: OutElement[] = [];
  const names = request.kind === 'prop' ? request.names : [...props.keys()].filter((n) => request.kind === 'propname' || !NOT_IN_ALLPROP.has(n));
  for (const name of names) {
    const value = props.get(name);
    if (value === undefined || value === null) {
      if (request.kind === 'prop') missing.push(el(name));
      continue;
    }
    if (request.kind === 'propname') found.push(el(name));
    else found.push(typeof value === 'string' ? el(name, value) : el(name, value));
  }
  const propstats: OutElement[] = [];
  if (found.length > 0 || missing.length === 0) propstats.push(el(PROPSTAT, [el(PROP, found), STATUS_OK]));
  if (missing.length > 0) propstats.push(el(PROPSTAT, [el(PROP, missing), STATUS_NOT_FOUND]));
  return el(RESPONSE, [el(HREF, href), ...propstats]);
}

/** A `response` with only a status (a multiget href that is not there, a deleted member in sync-collection), and the DAV precondition `error` names. */
export function statusResponse(href: string, status: string, error?: string): OutElement {
  return el(RESPONSE, [el(HREF, href), el(d('status'), status), ...(error === undefined ? [] : [el(d('error'), [el(d(error))])])]);
}

/** The multistatus document of some responses (and a sync token, for sync-collection). */
export function multistatus(responses: readonly OutElement[], token?: string): OutElement {
  return el(d('multistatus'), [...responses, ...(token === undefined ? [] : [el(d('sync-token'), token)])]);
}
