import { DomainError, expandOccurrences, type AppPasswordIdentity, type AppPasswordService, type RenderStore, type SyncApi } from '@calsync/domain';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { etagOf, type IcalObject } from '../ical/objects.js';
import { BasicAuthenticator, refuse, type BasicLimits } from './dav-auth.js';
import { collectionVersion, DavObjects, DavWriteError, hrefNameOf, membersOf, RenderCache, WrittenRenders, type Collection, type Member } from './dav-objects.js';
import {
  collectionOfSegment,
  collectionProps,
  homeProps,
  multistatus,
  objectProps,
  paths,
  principalProps,
  propRequestOf,
  propResponse,
  statusResponse,
  syncToken,
  TASKS,
  versionOfSyncToken,
  type PropRequest,
} from './dav-props.js';
import { child, children, el, NS, parseXml, qname, writeXml, type OutElement, type XmlNode } from './dav-xml.js';

/** Options of the CalDAV plugin. */
export interface DavOptions {
  readonly appPasswords: Pick<AppPasswordService, 'authenticate'>;
  readonly sync: Pick<SyncApi, 'readObjects' | 'readObjectsChangedSince' | 'readCollectionVersions' | 'readObjectListing' | 'push'>;
  readonly limits?: BasicLimits;
  /** Rendered objects kept across processes (a fresh process's first sync reads them); without, each process renders anew. */
  readonly renders?: RenderStore;
}

const d = (local: string) => qname(NS.dav, local);
const c = (local: string) => qname(NS.caldav, local);

const METHODS = ['PROPFIND', 'PROPPATCH', 'MKCALENDAR', 'REPORT'] as const;
/**
 * CalDAV takes no part in CORS (calendar apps are no browser pages): its OPTIONS is a calendar
 * app's capability probe (RFC 4918), answered by its route, never a preflight.
 */
const NO_CORS = { cors: false } as const;
/** WebDAV methods calsync does not offer: answered 405 with the methods it does (a 404 to a MOVE would read as "no such source"). */
const REFUSED_METHODS = ['MOVE', 'COPY', 'LOCK', 'UNLOCK', 'MKCOL', 'ACL'] as const;
const ALLOW = 'OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, PROPPATCH, MKCALENDAR, REPORT';

/** Where a DAV path points, once the user is known. */
type Target =
  | { readonly kind: 'root' }
  | { readonly kind: 'principal' }
  | { readonly kind: 'home' }
  | { readonly kind: 'collection'; readonly collection: string }
  | { readonly kind: 'object'; readonly collection: string; readonly name: string }
  | { readonly kind: 'none' };

function targetOf(url: string, userId: number): Target {
  const path = url.split('?')[0]!.replace(/^\/dav\/?/, '');
  const parts = path.split('/').filter(Boolean).map((p) => decodeURIComponent(p));
  if (parts.length === 0) return { kind: 'root' };
  const [area, owner, collection, name, ...rest] = parts;
  if (owner !== String(userId) || rest.length > 0) return { kind: 'none' };
  if (area === 'principals') return collection === undefined ? { kind: 'principal' } : { kind: 'none' };
  if (area !== 'calendars') return { kind: 'none' };
  if (collection === undefined) return { kind: 'home' };
  if (name === undefined) return { kind: 'collection', collection: collectionOfSegment(collection) };
  return { kind: 'object', collection: collectionOfSegment(collection), name };
}

function xml(reply: FastifyReply, status: number, body: OutElement): FastifyReply {
  return reply.code(status).type('application/xml; charset=utf-8').send(writeXml(body));
}

function davError(reply: FastifyReply, error: DavWriteError): FastifyReply {
  if (error.precondition === undefined) return reply.code(error.status).type('text/plain; charset=utf-8').send(`${error.message}\n`);
  return xml(reply, error.status, el(d('error'), [el(c(error.precondition)), el(d('responsedescription'), error.message)]));
}

function bodyText(request: FastifyRequest): string {
  return typeof request.body === 'string' ? request.body : Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '';
}

function bodyXml(request: FastifyRequest): XmlNode | undefined {
  const text = bodyText(request).trim();
  return text === '' ? undefined : parseXml(text);
}

/** The calendar colour of a PROPPATCH or MKCALENDAR (`#RRGGBB`, or Apple's `#RRGGBBAA` without its alpha). */
function colorOf(value: string | undefined): string | undefined {
  const m = value === undefined ? null : /^#([0-9A-Fa-f]{6})([0-9A-Fa-f]{2})?$/.exec(value.trim());
  return m ? `#${m[1]}` : undefined;
}

/** Display name and colour set by a PROPPATCH `set` or an MKCALENDAR body. */
function calendarPropsOf(node: XmlNode | undefined): { name?: string; color?: string } {
  const props: { name?: string; color?: string } = {};
  for (const set of [...children(node, d('set')), ...children(child(node, d('set')), d('set'))]) {
    const prop = child(set, d('prop'));
    const name = child(prop, d('displayname'))?.text;
    const color = colorOf(child(prop, qname(NS.apple, 'calendar-color'))?.text);
    if (name !== undefined && name.trim() !== '') props.name = name.trim().slice(0, 200);
    if (color !== undefined) props.color = color;
  }
  return props;
}

/**
 * A PROPPATCH's instructions (`set` and `remove`, in order), checked: the calendar fields they
 * write and each property's outcome, `refused` saying why (null: it can be applied). A calendar
 * keeps its name (1 to 200 characters, never removed) and colour (`#RRGGBB`, Apple's `#RRGGBBAA`
 * read without its alpha; removed, the calendar has none); calsync keeps no other property.
 */
function propertyUpdateOf(body: XmlNode | undefined): { fields: { name?: string; color?: string | null }; statuses: { name: string; refused: string | null }[] } {
  const fields: { name?: string; color?: string | null } = {};
  const statuses: { name: string; refused: string | null }[] = [];
  for (const instruction of body?.children ?? []) {
    const setting = instruction.name === d('set');
    if (!setting && instruction.name !== d('remove')) continue;
    for (const prop of child(instruction, d('prop'))?.children ?? []) {
      let refused: string | null = null;
      if (prop.name === d('displayname')) {
        const name = prop.text.trim();
        if (!setting) refused = 'a calendar always has a name';
        else if (name === '' || name.length > 200) refused = 'a calendar name has 1 to 200 characters';
        else fields.name = name;
      } else if (prop.name === qname(NS.apple, 'calendar-color')) {
        const color = setting ? colorOf(prop.text) : null;
        if (color === undefined) refused = 'a colour is #RRGGBB (or #RRGGBBAA)';
        else fields.color = color;
      } else {
        refused = 'calsync keeps no such property';
      }
      statuses.push({ name: prop.name, refused });
    }
  }
  return { fields, statuses };
}

/** The time-range of a calendar-query filter, as ISO instants, or null when it has none. */
function timeRangeOf(filter: XmlNode | undefined): { from: string; to: string } | null {
  const find = (node: XmlNode | undefined): XmlNode | undefined => {
    if (node === undefined) return undefined;
    const range = child(node, c('time-range'));
    if (range !== undefined) return range;
    for (const f of children(node, c('comp-filter'))) {
      const inner = find(f);
      if (inner !== undefined) return inner;
    }
    return undefined;
  };
  const range = find(filter);
  if (range === undefined) return null;
  const iso = (v: string | undefined, fallback: string) => {
    if (v === undefined) return fallback;
    const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(v);
    // A bound that is no UTC date-time (RFC 4791 9.9) is refused, not read as no bound.
    if (m === null || Number.isNaN(Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`))) throw new DavWriteError(403, `time-range ${v} is no UTC date-time (YYYYMMDDTHHMMSSZ)`, 'valid-filter');
    return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`;
  };
  return { from: iso(range.attributes.start, '0001-01-01T00:00:00Z'), to: iso(range.attributes.end, '9999-12-31T00:00:00Z') };
}

/**
 * CalDAV (RFC 4791) with sync-collection (RFC 6578) and discovery (RFC 6764) under /dav/, signed in
 * with app passwords (HTTP Basic). One calendar collection per calendar (VEVENT) and `tasks`
 * (VTODO); every write is a push of the app password's device, so SDK devices see it on their next
 * pull and CalDAV sees theirs in its next sync-collection. Not in the OpenAPI document: its
 * bodies are XML and iCalendar.
 */
export async function davRoutes(app: FastifyInstance, opts: DavOptions): Promise<void> {
  for (const method of [...METHODS, ...REFUSED_METHODS]) if (!app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });
  const auth = new BasicAuthenticator(opts.appPasswords, opts.limits);
  const rendered = new RenderCache();
  // Without a store, renders are kept by the process only, as reads make them.
  const written =
    opts.renders === undefined
      ? null
      : new WrittenRenders(
          (userId) => new DavObjects(opts.sync, userId, '', rendered, opts.renders),
          (error) => app.log.warn({ err: error }, 'CalDAV: keeping the renders of PUT objects failed (they are rendered when read)'),
        );
  if (written !== null) app.addHook('onClose', async () => written.settled());
  // Bodies are XML or iCalendar: read as text here (the JSON API keeps its parser).
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  const toDavRoot = async (_request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => reply.code(301).header('location', '/dav/').send();
  app.route({
    method: ['GET', 'PROPFIND', ...METHODS.filter((m) => m !== 'PROPFIND'), 'OPTIONS', 'PUT', 'DELETE'],
    url: '/.well-known/caldav',
    schema: { hide: true },
    config: NO_CORS,
    handler: toDavRoot,
  });
  // The server's own address, as the README tells people to give their app: an app that asks it
  // for the principal (python caldav does, without looking for /.well-known) is sent to /dav/ too.
  // GET / stays the web app's.
  app.route({ method: 'PROPFIND', url: '/', schema: { hide: true }, handler: toDavRoot });

  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    reply.header('dav', '1, 3, calendar-access').header('allow', ALLOW);
    if (request.method === 'OPTIONS') return reply.code(200).send();
    if ((REFUSED_METHODS as readonly string[]).includes(request.method)) return reply.code(405).send();
    const identity = await auth.authenticate(request);
    if ('status' in identity) return refuse(reply, identity);
    try {
      return await serve(request, reply, identity);
    } catch (error) {
      if (error instanceof DavWriteError) return davError(reply, error);
      throw error;
    }
  };
  app.route({ method: ['OPTIONS', 'GET', 'PUT', 'DELETE', ...METHODS, ...REFUSED_METHODS], url: '/dav', schema: { hide: true }, config: NO_CORS, handler });
  app.route({ method: ['OPTIONS', 'GET', 'PUT', 'DELETE', ...METHODS, ...REFUSED_METHODS], url: '/dav/*', schema: { hide: true }, config: NO_CORS, handler });

  async function serve(request: FastifyRequest, reply: FastifyReply, identity: AppPasswordIdentity): Promise<FastifyReply> {
    const objects = new DavObjects(opts.sync, identity.userId, identity.deviceUid, rendered, opts.renders);
    const target = targetOf(request.url, identity.userId);
    const p = paths(identity.userId);
    const method = request.method;
    if (target.kind === 'none') return reply.code(404).send();

    if (target.kind === 'root' || target.kind === 'principal') {
      if (method !== 'PROPFIND') return reply.code(405).send();
      const request_ = propRequestOf(bodyXml(request));
      const href = target.kind === 'root' ? '/dav/' : p.principal;
      const responses = [propResponse(href, principalProps(identity.userId, 'calsync'), request_)];
      if (target.kind === 'principal' && request.headers.depth === '1') responses.push(propResponse(p.home, homeProps(identity.userId), request_));
      return xml(reply, 207, multistatus(responses));
    }

    if (target.kind === 'home') {
      if (method !== 'PROPFIND') return reply.code(405).send();
      const request_ = propRequestOf(bodyXml(request));
      const responses = [propResponse(p.home, homeProps(identity.userId), request_)];
      if (request.headers.depth !== '0') {
        const { calendars, version } = await objects.collectionVersions();
        for (const calendar of calendars) responses.push(propResponse(p.collection(calendar.uid), collectionProps(identity.userId, calendar, version(calendar.uid)), request_));
        responses.push(propResponse(p.collection(TASKS), collectionProps(identity.userId, null, version(TASKS)), request_));
      }
      return xml(reply, 207, multistatus(responses));
    }

    const { collection } = target;
    const component = collection === TASKS ? 'VTODO' : 'VEVENT';

    if (target.kind === 'collection') {
      if (method === 'MKCALENDAR') {
        const created = await objects.makeCalendar(collection, calendarPropsOf(bodyXml(request)));
        return reply.code(created ? 201 : 405).send();
      }
      if (method === 'DELETE') {
        if (collection === TASKS) return reply.code(403).send();
        return reply.code((await objects.removeCalendar(collection)) ? 204 : 404).send();
      }
      if (method === 'PROPPATCH') {
        if (collection === TASKS) return reply.code(403).send();
        const { fields, statuses } = propertyUpdateOf(bodyXml(request));
        const failed = statuses.some((s) => s.refused !== null);
        if (!failed) await objects.patchCalendar(collection, fields);
        // All or nothing (RFC 4918 9.2): a refused property is 403 with its reason, the others 424.
        const propstat = (names: readonly string[], status: string, description?: string) =>
          el(d('propstat'), [el(d('prop'), names.map((n) => el(n))), el(d('status'), status), ...(description === undefined ? [] : [el(d('responsedescription'), description)])]);
        const groups = failed
          ? [
              ...statuses.filter((s) => s.refused !== null).map((s) => propstat([s.name], 'HTTP/1.1 403 Forbidden', s.refused!)),
              ...(statuses.some((s) => s.refused === null) ? [propstat(statuses.filter((s) => s.refused === null).map((s) => s.name), 'HTTP/1.1 424 Failed Dependency')] : []),
            ]
          : [propstat(statuses.map((s) => s.name), 'HTTP/1.1 200 OK')];
        return xml(reply, 207, multistatus([el(d('response'), [el(d('href'), p.collection(collection)), ...groups])]));
      }
      const reportBody = method === 'REPORT' ? bodyXml(request) : undefined;
      if (reportBody?.name === c('calendar-multiget')) return multiget(reply, objects, collection, identity.userId, reportBody);
      if (reportBody?.name === d('sync-collection')) {
        // From a token: read what changed since it, not the collection.
        const since = sinceOf(reportBody);
        if (since !== null && since !== 'invalid') {
          const changed = await objects.changedSince(collection, since);
          if (changed === null) return reply.code(404).send();
          // Retention removed deletes (or departures) after this token: the app must sync afresh (RFC 6578 3.2).
          if (changed !== undefined && since < changed.purgedThrough) return xml(reply, 403, el(d('error'), [el(d('valid-sync-token'))]));
          if (changed !== undefined) return syncCollection(reply, objects, membersOf(changed.within), changed.within, collection, identity.userId, since, changed.newest, reportBody);
        }
        // From no token and without calendar data (how calendar apps list): names and ETags only.
        if (since === null && !wantsData(propRequestOf(reportBody))) {
          const listed = await objects.listing(collection);
          if (listed === null) return reply.code(404).send();
          return syncCollection(reply, objects, listed.members, null, collection, identity.userId, null, listed.version, reportBody);
        }
      }
      const listing = request.headers.depth === '1' || request.headers.depth === 'infinity';
      if (method === 'PROPFIND' && !listing) {
        // The collection alone (a calendar app's CTag poll): its version, not its objects.
        const { calendars, version } = await objects.collectionVersions();
        const calendar = collection === TASKS ? null : (calendars.find((x) => x.uid === collection) ?? null);
        if (collection !== TASKS && calendar === null) return reply.code(404).send();
        return xml(reply, 207, multistatus([propResponse(p.collection(collection), collectionProps(identity.userId, calendar, version(collection)), propRequestOf(bodyXml(request)))]));
      }
      if (method === 'PROPFIND') {
        // The collection and its members' names and ETags: no calendar data, so no rows.
        const listed = await objects.listing(collection);
        if (listed === null) return reply.code(404).send();
        const calendar = collection === TASKS ? null : (listed.calendars.find((x) => x.uid === collection) ?? null);
        const request_ = propRequestOf(bodyXml(request));
        const responses = [propResponse(p.collection(collection), collectionProps(identity.userId, calendar, listed.version), request_)];
        for (const m of listed.members) if (!m.deleted) responses.push(propResponse(p.resource(collection, m.name), objectProps(identity.userId, etagOf(m), component, null), request_));
        return xml(reply, 207, multistatus(responses));
      }
      const coll = await objects.collection(collection);
      if (coll === null) return reply.code(404).send();
      const version = collectionVersion(coll.rows);
      if (method === 'REPORT') return report(reply, objects, coll, collection, identity.userId, version, reportBody);
      return reply.code(405).send();
    }

    // A calendar object resource.
    const { name } = target;
    if (method === 'GET' || method === 'HEAD') {
      const found = await objects.find(collection, name);
      if (found === null) return reply.code(404).send();
      await objects.loadRenders([found.object], found.within, collection);
      const text = await objects.render(found.object, found.within, collection);
      keepLater(objects, reply);
      return reply.code(200).header('etag', etagOf(found.object)).type('text/calendar; charset=utf-8').send(text);
    }
    if (method === 'PUT') {
      const ifMatch = request.headers['if-match'];
      const ifNoneMatch = request.headers['if-none-match'];
      const out = await objects.put(collection, name, bodyText(request), {
        ...(typeof ifMatch === 'string' ? { ifMatch } : {}),
        ...(typeof ifNoneMatch === 'string' ? { ifNoneMatch } : {}),
      });
      if (out.written !== null) written?.add(identity.userId, collection, out.written);
      if (out.etag !== null) reply.header('etag', out.etag);
      return reply.code(out.created ? 201 : 204).send();
    }
    if (method === 'DELETE') {
      const ifMatch = request.headers['if-match'];
      return reply.code((await objects.remove(collection, name, typeof ifMatch === 'string' ? ifMatch : undefined)) ? 204 : 404).send();
    }
    if (method === 'PROPFIND') {
      const found = await objects.find(collection, name);
      if (found === null) return reply.code(404).send();
      const request_ = propRequestOf(bodyXml(request));
      const wantsData = request_.kind === 'prop' && request_.names.includes(c('calendar-data'));
      if (wantsData) await objects.loadRenders([found.object], found.within, collection);
      const data = wantsData ? await objects.render(found.object, found.within, collection) : null;
      keepLater(objects, reply);
      return xml(reply, 207, multistatus([propResponse(p.resource(collection, name), objectProps(identity.userId, etagOf(found.object), component, data), request_)]));
    }
    return reply.code(405).send();
  }

  /** calendar-multiget: the objects of the listed hrefs, read by name (one read for all of them), a 404 response for an href that is not there. */
  async function multiget(reply: FastifyReply, objects: DavObjects, collection: string, userId: number, body: XmlNode): Promise<FastifyReply> {
    const p = paths(userId);
    const component = collection === TASKS ? 'VTODO' : 'VEVENT';
    const request_ = propRequestOf(body);
    const wantsData = request_.kind !== 'prop' || request_.names.includes(c('calendar-data'));
    const prefix = decodeURIComponent(p.collection(collection));
    const hrefs = children(body, d('href')).map((h) => ({ text: h.text, path: decodeURIComponent(pathOf(h.text)) }));
    const names = hrefs.map((h) => (h.path.startsWith(prefix) ? h.path.slice(prefix.length) : ''));
    const read = await objects.findMany(collection, names.filter((n) => n !== '' && !n.includes('/')));
    if (read === null) return reply.code(404).send();
    if (wantsData) await objects.loadRenders([...read.found.values()], read.within, collection);
    const responses: OutElement[] = [];
    for (const [i, href] of hrefs.entries()) {
      const o = read.found.get(names[i]!);
      if (o === undefined) {
        responses.push(statusResponse(href.text, 'HTTP/1.1 404 Not Found'));
        continue;
      }
      const data = wantsData ? await objects.render(o, read.within, collection) : null;
      responses.push(propResponse(p.resource(collection, names[i]!), objectProps(userId, etagOf(o), component, data), request_.kind === 'allprop' ? { kind: 'prop', names: [d('getetag'), c('calendar-data')] } : request_));
    }
    keepLater(objects, reply);
    return xml(reply, 207, multistatus(responses));
  }

  /** calendar-multiget, calendar-query (time-range through the occurrence expander) and sync-collection. */
  async function report(reply: FastifyReply, objects: DavObjects, coll: Collection, collection: string, userId: number, version: bigint, body: XmlNode | undefined): Promise<FastifyReply> {
    if (body === undefined) throw new DomainError('VALIDATION_ERROR', 'REPORT needs a body');
    const p = paths(userId);
    const component = collection === TASKS ? 'VTODO' : 'VEVENT';
    const request_: PropRequest = propRequestOf(body);
    const wantsData = request_.kind !== 'prop' || request_.names.includes(c('calendar-data'));
    const respond = async (o: IcalObject): Promise<OutElement> => {
      const data = wantsData ? await objects.render(o, coll, collection) : null;
      return propResponse(p.resource(collection, hrefNameOf(o.root)), objectProps(userId, etagOf(o), component, data), request_.kind === 'allprop' ? { kind: 'prop', names: [d('getetag'), c('calendar-data')] } : request_);
    };
    if (body.name === c('calendar-query')) {
      const range = collection === TASKS ? null : timeRangeOf(child(body, c('filter')));
      let chosen = live(coll);
      if (range !== null) {
        const events = chosen.flatMap((o) => [o.root, ...o.overrides.filter((x) => x.deleted === null)]);
        const { occurrences } = expandOccurrences(events, () => coll.zone, { ...range, limit: 1_000_000 });
        const hit = new Set(occurrences.map((o) => o.seriesUid ?? o.eventUid));
        chosen = chosen.filter((o) => hit.has(o.root.uid));
      }
      if (wantsData) await objects.loadRenders(chosen, coll, collection);
      const responses = await Promise.all(chosen.map(respond));
      keepLater(objects, reply);
      return xml(reply, 207, multistatus(responses));
    }
    if (body.name === d('sync-collection')) {
      const since = sinceOf(body);
      if (since === 'invalid') return xml(reply, 403, el(d('error'), [el(d('valid-sync-token'))]));
      return syncCollection(reply, objects, membersOf(coll), coll, collection, userId, since, version, body);
    }
    return xml(reply, 403, el(d('error'), [el(d('supported-report'))]));
  }

  /**
   * sync-collection (RFC 6578): the members of a collection changed after `since` (all of them for
   * an initial sync), a 404 response for each deleted one since, and the token of `upTo`. `members`
   * may be the whole collection or only what changed since `since`; a token past `upTo` is refused.
   * `coll` holds the members' rows, and is needed only when calendar data is asked for (a listing
   * has none).
   */
  async function syncCollection(
    reply: FastifyReply,
    objects: DavObjects,
    members: readonly Member[],
    coll: Collection | null,
    collection: string,
    userId: number,
    since: bigint | null,
    upTo: bigint,
    body: XmlNode,
  ): Promise<FastifyReply> {
    if (since !== null && since > upTo) return xml(reply, 403, el(d('error'), [el(d('valid-sync-token'))]));
    const p = paths(userId);
    const component = collection === TASKS ? 'VTODO' : 'VEVENT';
    const request_: PropRequest = propRequestOf(body);
    const withData = wantsData(request_);
    const responses: OutElement[] = [];
    let token = since ?? 0n;
    // DAV:limit (RFC 6578 3.7): the oldest changes up to the limit, a token at the last of them, and 507 for the collection.
    const limit = nresultsOf(body);
    const reported = limit === null ? [] : members.filter((m) => (since === null ? !m.deleted : m.version > since)).map((m) => m.version);
    const cut = limit !== null && reported.length > limit ? reported.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[limit - 1]! : null;
    const within = (version: bigint) => (since === null || version > since) && (cut === null || version <= cut);
    if (withData) await objects.loadRenders(coll!.objects.filter((o) => within(o.version)), coll!, collection);
    for (const m of members) {
      if (!within(m.version)) continue;
      if (m.version > token) token = m.version;
      if (m.deleted) {
        if (since !== null) responses.push(statusResponse(p.resource(collection, m.name), 'HTTP/1.1 404 Not Found'));
        continue;
      }
      const data = withData ? await objects.render(m.object!, coll!, collection) : null;
      responses.push(propResponse(p.resource(collection, m.name), objectProps(userId, etagOf(m), component, data), request_.kind === 'allprop' ? { kind: 'prop', names: [d('getetag'), c('calendar-data')] } : request_));
    }
    // From the whole collection the token is its version (the same as the newest object's, or higher when nothing is left).
    if (since === null) token = upTo;
    if (cut !== null) {
      token = cut;
      responses.push(statusResponse(p.collection(collection), 'HTTP/1.1 507 Insufficient Storage', 'number-of-matches-within-limits'));
    }
    keepLater(objects, reply);
    return xml(reply, 207, multistatus(responses, syncToken(token)));
  }
}

/** Writes the renders a read made to the store without holding its answer (a failure costs only renders made again later). */
function keepLater(objects: DavObjects, reply: FastifyReply): void {
  objects.keepRenders().catch((error: unknown) => reply.log.warn({ err: error }, 'CalDAV: keeping renders failed (they are rendered again when read)'));
}

/** Characters a path may hold that a URL's pathname keeps as they are, and dot segments (plain or percent-encoded), which it resolves. */
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~%/@+:=,;!$&'()*]*$/;
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/** The path an href names, as a URL's pathname (a multiget lists a hundred; the usual plain path is taken as it is, anything else through URL). */
function pathOf(href: string): string {
  return PLAIN_PATH.test(href) && !DOT_SEGMENT.test(href) ? href : new URL(href, 'http://x').pathname;
}

/** The version a sync-collection's token names: null for none (an initial sync), 'invalid' when it is not one of ours. */
function sinceOf(body: XmlNode): bigint | null | 'invalid' {
  const tokenText = child(body, d('sync-token'))?.text.trim() ?? '';
  if (tokenText === '') return null;
  return versionOfSyncToken(tokenText) ?? 'invalid';
}

/** A sync-collection's `DAV:limit` (`nresults`, a positive integer), or null without one (or with one that is no such number). */
function nresultsOf(body: XmlNode): number | null {
  const text = child(child(body, d('limit')), d('nresults'))?.text.trim() ?? '';
  const n = /^[0-9]{1,9}$/.test(text) ? Number(text) : 0;
  return n >= 1 ? n : null;
}

/** Whether a REPORT's properties include calendar data (allprop and propname count as asking: a multiget's allprop answers it). */
function wantsData(request: PropRequest): boolean {
  return request.kind !== 'prop' || request.names.includes(c('calendar-data'));
}

/** The live objects of a collection. */
function live(coll: Collection): IcalObject[] {
  return coll.objects.filter((o) => o.root.deleted === null);
}
