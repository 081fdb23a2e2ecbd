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
  const tag = Object.keys(entry).find((k) => k !== ':@');
  if (tag === undefined || tag === '#text' || tag.startsWith('?')) return null;
  const attrs = entry[':@'] ?? {};
  const scope = new Map(inherited);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'xmlns') scope.set('', v);
    else if (k.startsWith('xmlns:')) scope.set(k.slice(6), v);
  }
  const colon = tag.indexOf(':');
  const prefix = colon < 0 ? '' : tag.slice(0, colon);
  const local = colon < 0 ? tag : tag.slice(colon + 1);
  const raw = entry[tag] as Ordered[];
  const children: XmlNode[] = [];
  let text = '';
  for (const child of raw) {
    if (typeof child['#text'] === 'string' || typeof child['#text'] === 'number') text += String(child['#text']);
    const node = toNode(child, scope);
    if (node !== null) children.push(node);
  }
  const attributes: Record<string, string> = {};
  for (const [k, v] of Object.entries(attrs)) if (!k.startsWith('xmlns')) attributes[k.includes(':') ? k.slice(k.indexOf(':') + 1) : k] = String(v);
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

const builder = new XMLBuilder({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '@_', suppressEmptyNode: true, processEntities: true });

/** Writes a tree as an XML document (the builder escapes text and attributes), declaring every namespace used at the root. */
export function writeXml(root: OutElement): string {
  const used = new Map<string, string>();
  const prefixed = (name: string): string => {
    const m = /^\{([^}]*)\}(.*)$/.exec(name);
    if (!m) return name;
    const ns = m[1]!;
    let prefix = PREFIX[ns] ?? used.get(ns);
    if (prefix === undefined) prefix = `x${used.size}`;
    used.set(ns, prefix);
    return `${prefix}:${m[2]}`;
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
