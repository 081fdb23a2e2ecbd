import { DomainError } from '@calsync/domain';
import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';

/** The namespaces CalDAV speaks, and the prefixes this server writes them with. */
export const NS = {
  dav: 'DAV:',
  caldav: 'urn:ietf:params:xml:ns:caldav',
  cs: 'http://calendarserver.org/ns/',
  apple: 'http://apple.com/ns/ical/',
} as const;

const PREFIX: Readonly<Record<string, string>> = { [NS.dav]: 'd', [NS.caldav]: 'c', [NS.cs]: 'cs', [NS.apple]: 'a' };

/** An element of a request body: its name as `{namespace}local`, children and text. */
export interface XmlNode {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly XmlNode[];
  readonly text: string;
}

/** `{namespace}local` of a name in a namespace. */
export function qname(ns: string, local: string): string {
  return `{${ns}}${local}`;
}

type Ordered = Record<string, unknown> & { ':@'?: Record<string, string> };

const parser = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '', processEntities: false, parseTagValue: false, trimValues: true });

function toNode(entry: Ordered, inherited: ReadonlyMap<string, string>): XmlNode | null {
  let tag: string | undefined;
  for (const k in entry) {
    if (k !== ':@') {
      tag = k;
      break;
    }
  }
  if (tag === undefined || tag === '#text' || tag.startsWith('?')) return null;
  const attrs = entry[':@'] ?? {};
  // A new scope only for an element that declares namespaces (most declare none).
  let scope = inherited;
  const attributes: Record<string, string> = {};
  for (const k in attrs) {
    const v = attrs[k]!;
    if (k === 'xmlns' || k.startsWith('xmlns:')) {
      if (scope === inherited) scope = new Map(inherited);
      (scope as Map<string, string>).set(k === 'xmlns' ? '' : k.slice(6), v);
    } else attributes[k.includes(':') ? k.slice(k.indexOf(':') + 1) : k] = String(v);
  }
  const colon = tag.indexOf(':');
  const prefix = colon < 0 ? '' : tag.slice(0, colon);
  const local = colon < 0 ? tag : tag.slice(colon + 1);
  const raw = entry[tag] as Ordered[];
  const children: XmlNode[] = [];
  let text = '';
  for (const child of raw) {
    const t = child['#text'];
    if (typeof t === 'string' || typeof t === 'number') {
      text += String(t);
      continue;
    }
    const node = toNode(child, scope);
    if (node !== null) children.push(node);
  }
  return { name: qname(scope.get(prefix) ?? '', local), attributes, children, text };
}

/**
 * A request body's root element, namespaces resolved. No document type is accepted: an entity
 * declaration is how an XML bomb (billion laughs) or an external entity gets in, and CalDAV never
 * needs one (400 VALIDATION_ERROR), nor does ill-formed XML (400).
 */
export function parseXml(body: string): XmlNode {
  if (/<!DOCTYPE|<!ENTITY/i.test(body)) throw new DomainError('VALIDATION_ERROR', 'XML with a document type or entity declarations is not accepted');
  const valid = XMLValidator.validate(body);
  if (valid !== true) throw new DomainError('VALIDATION_ERROR', `not well-formed XML: ${valid.err.msg}`);
  for (const entry of parser.parse(body) as Ordered[]) {
    const node = toNode(entry, new Map());
    if (node !== null) return node;
  }
  throw new DomainError('VALIDATION_ERROR', 'an XML body without an element');
}

/** The first child named `name` ({ns}local), or undefined. */
export function child(node: XmlNode | undefined, name: string): XmlNode | undefined {
  return node?.children.find((c) => c.name === name);
}

/** Every child named `name`. */
export function children(node: XmlNode | undefined, name: string): XmlNode[] {
  return node?.children.filter((c) => c.name === name) ?? [];
}

/** An element to write: `{ns}local`, then its text, children or nothing. */
export interface OutElement {
  readonly name: string;
  readonly text?: string;
  readonly children?: readonly OutElement[];
  readonly attributes?: Readonly<Record<string, string>>;
}

/** `el('{DAV:}href', '/x')` and `el(name, [children])`. */
export function el(name: string, content?: string | readonly OutElement[], attributes?: Readonly<Record<string, string>>): OutElement {
  return typeof content === 'string' ? { name, text: content, ...(attributes ? { attributes } : {}) } : { name, children: content ?? [], ...(attributes ? { attributes } : {}) };
}

/** `{namespace}local` split, and prefixed when the namespace is one of ours (by name: a response names the same few hundred elements again and again). */
const splitNames = new Map<string, { ns: string; local: string; prefixed: string | undefined } | null>();

function splitName(name: string): { ns: string; local: string; prefixed: string | undefined } | null {
  let split = splitNames.get(name);
  if (split === undefined) {
    const m = /^\{([^}]*)\}(.*)$/.exec(name);
    const known = m === null ? undefined : PREFIX[m[1]!];
    split = m === null ? null : { ns: m[1]!, local: m[2]!, prefixed: known === undefined ? undefined : `${known}:${m[2]}` };
    // Names come from requests too (a PROPFIND may name any property): only so many are kept.
    if (splitNames.size < 10_000) splitNames.set(name, split);
  }
  return split;
}

const builder = new XMLBuilder({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '@_', suppressEmptyNode: true, processEntities: true });

/** Writes a tree as an XML document (the builder escapes text and attributes), declaring every namespace used at the root. */
export function writeXml(root: OutElement): string {
  const used = new Map<string, string>();
  const prefixed = (name: string): string => {
    const split = splitName(name);
    if (split === null) return name;
    const known = PREFIX[split.ns];
    if (known !== undefined) {
      // The usual case: a namespace of ours, its prefixed name made once.
      used.set(split.ns, known);
      return split.prefixed!;
    }
    let prefix = used.get(split.ns);
    if (prefix === undefined) prefix = `x${used.size}`;
    used.set(split.ns, prefix);
    return `${prefix}:${split.local}`;
  };
  const convert = (e: OutElement): Record<string, unknown> => {
    const tag = prefixed(e.name);
    const inner: unknown[] = e.text !== undefined ? [{ '#text': e.text }] : (e.children ?? []).map(convert);
    const out: Record<string, unknown> = { [tag]: inner };
    if (e.attributes) out[':@'] = Object.fromEntries(Object.entries(e.attributes).map(([k, v]) => [`@_${k}`, v]));
    return out;
  };
  const tree = convert(root);
  const rootTag = Object.keys(tree)[0]!;
  const nsAttrs: Record<string, string> = {};
  for (const [ns, prefix] of used) nsAttrs[`@_xmlns:${prefix}`] = ns;
  tree[':@'] = { ...(tree[':@'] as object | undefined), ...nsAttrs };
  return `<?xml version="1.0" encoding="utf-8"?>\n${builder.build([{ [rootTag]: tree[rootTag], ':@': tree[':@'] }])}`;
}
