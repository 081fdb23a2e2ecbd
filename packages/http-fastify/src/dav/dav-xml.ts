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

/** The `{namespace}local` names of our namespaces made so far. */
const ourNames = new Map<string, Map<string, string>>(Object.values(NS).map((ns) => [ns, new Map<string, string>()]));

/** `{namespace}local` of a name in a namespace. */
export function qname(ns: string, local: string): string {
  const ours = ourNames.get(ns);
  if (ours === undefined) return `{${ns}}${local}`;
  let name = ours.get(local);
  if (name === undefined) {
    name = `{${ns}}${local}`;
    // Made once per name of our namespaces (the writer looks names up, and a string made once has its hash); request bodies may name any, so only so many.
    if (ours.size < 1_000) ours.set(local, name);
  }
  return name;
}

type Ordered = Record<string, unknown> & { ':@'?: Record<string, string> };

// jPath: false: the parser's callbacks (none of ours) get its path matcher instead of a path string,
// which it would otherwise make for every element and text (a third of a 100-href multiget's parse).
const parser = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '', processEntities: false, parseTagValue: false, trimValues: true, jPath: false });

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

/** What `el` records of an element's name: its namespace and local name, and its prefixed name when the namespace is one of ours. */
interface SplitName {
  readonly ns: string;
  readonly local: string;
  readonly prefixed: string | undefined;
}

/** Where an element keeps its split name, its tag and its namespaces (symbols: the builder reads only string keys). */
const SPLIT = Symbol('split name');
const TAG = Symbol('tag');
const USES = Symbol('namespaces used');

/** Our namespaces by a one-character code, for `USES`. */
const CODES: readonly string[] = [NS.dav, NS.caldav, NS.cs, NS.apple];
const CODE_OF: Readonly<Record<string, string>> = Object.fromEntries(CODES.map((ns, i) => [ns, String(i)]));

/**
 * An element to write, already in the builder's ordered input (`{ tag: [children], ':@': attributes }`):
 * a response is built once, not built as a tree and converted. Made by `el` only, never changed after
 * (elements are shared between documents).
 */
export interface OutElement {
  readonly [SPLIT]: SplitName | null;
  readonly [TAG]: string;
  /** The codes of our namespaces the element and its descendants use, in document order; null when one of them is of another namespace. */
  readonly [USES]: string | null;
}

type Built = OutElement & Record<string, unknown>;

/** `{namespace}local` split, and prefixed when the namespace is one of ours (by name: a response names the same few hundred elements again and again). */
const splitNames = new Map<string, SplitName | null>();

function splitName(name: string): SplitName | null {
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

/**
 * `el('{DAV:}href', '/x')` and `el(name, [children])`. An element of one of our namespaces gets its
 * prefixed tag here; one of another namespace keeps its `{ns}local` key until `writeXml` gives
 * the namespace a prefix of the document.
 */
export function el(name: string, content?: string | readonly OutElement[], attributes?: Readonly<Record<string, string>>): OutElement {
  const split = splitName(name);
  const tag = split === null ? name : (split.prefixed ?? name);
  let uses: string | null = split === null ? '' : (CODE_OF[split.ns] ?? null);
  if (typeof content !== 'string' && content !== undefined) {
    for (let i = 0; i < content.length && uses !== null; i++) {
      const inner = content[i]![USES];
      if (inner === null) uses = null;
      else if (inner !== uses && inner !== '') for (const code of inner) if (!uses.includes(code)) uses += code;
    }
  }
  const out: Record<string | symbol, unknown> = { [tag]: typeof content === 'string' ? [{ '#text': content }] : (content ?? []) };
  if (attributes !== undefined) {
    const attrs: Record<string, string> = {};
    for (const k in attributes) attrs[`@_${k}`] = attributes[k]!;
    out[':@'] = attrs;
  }
  out[SPLIT] = split;
  out[TAG] = tag;
  out[USES] = uses;
  return out as unknown as OutElement;
}

const builder = new XMLBuilder({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '@_', suppressEmptyNode: true, processEntities: true });

/** Notes our namespaces of `codes` in `used`, in their order (a namespace noted before keeps its place). */
function noteCodes(codes: string, used: Map<string, string>): void {
  for (const code of codes) {
    const ns = CODES[Number(code)]!;
    used.set(ns, PREFIX[ns]!);
  }
}

/**
 * Notes the namespaces of `e` and its descendants in `used` (in document order, each its prefix),
 * and answers `e` as the builder is to read it: `e` itself, or a copy with prefixed tags where an
 * element (or a descendant) is of a namespace not ours. Only subtrees holding such an element are walked.
 */
function prepared(e: OutElement, used: Map<string, string>): OutElement {
  const uses = e[USES];
  if (uses !== null) {
    noteCodes(uses, used);
    return e;
  }
  const split = e[SPLIT];
  const tag = e[TAG];
  let newTag = tag;
  if (split !== null) {
    const known = PREFIX[split.ns];
    if (known !== undefined) used.set(split.ns, known);
    else {
      let prefix = used.get(split.ns);
      if (prefix === undefined) prefix = `x${used.size}`;
      used.set(split.ns, prefix);
      newTag = `${prefix}:${split.local}`;
    }
  }
  const built = e as Built;
  const kids = built[tag] as OutElement[];
  let newKids: OutElement[] | null = null;
  for (let i = 0; i < kids.length; i++) {
    const k = prepared(kids[i]!, used);
    if (k !== kids[i] && newKids === null) newKids = kids.slice(0, i);
    if (newKids !== null) newKids.push(k);
  }
  if (newTag === tag && newKids === null) return e;
  const out: Record<string | symbol, unknown> = { [newTag]: newKids ?? kids };
  if (built[':@'] !== undefined) out[':@'] = built[':@'];
  out[SPLIT] = split;
  out[TAG] = newTag;
  out[USES] = null;
  return out as unknown as OutElement;
}

/** Writes a tree as an XML document (the builder escapes text and attributes), declaring every namespace used at the root. */
export function writeXml(root: OutElement): string {
  const used = new Map<string, string>();
  const tree = prepared(root, used) as Built;
  const rootTag = tree[TAG];
  const nsAttrs: Record<string, string> = { ...(tree[':@'] as Record<string, string> | undefined) };
  for (const [ns, prefix] of used) nsAttrs[`@_xmlns:${prefix}`] = ns;
  return `<?xml version="1.0" encoding="utf-8"?>\n${builder.build([{ [rootTag]: tree[rootTag], ':@': nsAttrs }])}`;
}
