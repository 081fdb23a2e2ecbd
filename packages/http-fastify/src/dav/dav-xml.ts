import { DomainError } from '@calsync/domain';
import { Element } from 'ltx';
import { SaxesParser } from 'saxes';

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

/** An element while its body is read: its text grows as the parser meets it. */
interface OpenNode {
  readonly name: string;
  readonly attributes: Record<string, string>;
  readonly children: XmlNode[];
  text: string;
}

/**
 * A request body's root element, namespaces resolved (saxes: a strict, namespace-aware XML 1.0
 * parser; one pass checks well-formedness and reads the tree). No document type is accepted: an
 * entity declaration is how an XML bomb (billion laughs) or an external entity gets in, and CalDAV
 * never needs one (400 VALIDATION_ERROR), nor does ill-formed XML (400). Text is each text run of
 * an element trimmed and joined, with the predefined entities and character references decoded.
 */
export function parseXml(body: string): XmlNode {
  if (/<!DOCTYPE|<!ENTITY/i.test(body)) throw new DomainError('VALIDATION_ERROR', 'XML with a document type or entity declarations is not accepted');
  const parser = new SaxesParser({ xmlns: true, position: false });
  const open: OpenNode[] = [];
  let root: OpenNode | null = null;
  const addText = (text: string) => {
    const node = open[open.length - 1];
    if (node !== undefined) node.text += text.trim();
  };
  parser.on('opentag', (tag) => {
    const attributes: Record<string, string> = {};
    for (const k in tag.attributes) {
      const a = tag.attributes[k]!;
      if (a.prefix !== 'xmlns' && a.name !== 'xmlns') attributes[a.local] = a.value;
    }
    const node: OpenNode = { name: qname(tag.uri ?? '', tag.local ?? tag.name), attributes, children: [], text: '' };
    const parent = open[open.length - 1];
    if (parent === undefined) root = node;
    else parent.children.push(node);
    open.push(node);
  });
  parser.on('closetag', () => void open.pop());
  parser.on('text', addText);
  parser.on('cdata', addText);
  try {
    parser.write(body).close();
  } catch (error) {
    throw new DomainError('VALIDATION_ERROR', `not well-formed XML: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (root === null) throw new DomainError('VALIDATION_ERROR', 'an XML body without an element');
  return root;
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

/** Where an element keeps its split name and its namespaces (symbols: ltx writes only its name, attributes and children). */
const SPLIT = Symbol('split name');
const USES = Symbol('namespaces used');

/** Our namespaces by a one-character code, for `USES`. */
const CODES: readonly string[] = [NS.dav, NS.caldav, NS.cs, NS.apple];
const CODE_OF: Readonly<Record<string, string>> = Object.fromEntries(CODES.map((ns, i) => [ns, String(i)]));

/**
 * An element to write (an ltx element, which writes itself with its text and attributes escaped),
 * with its tag already prefixed when its namespace is one of ours. Made by `el` only, never changed
 * after (elements are shared between documents).
 */
export interface OutElement extends Element {
  readonly [SPLIT]: SplitName | null;
  /** The codes of our namespaces the element and its descendants use, in document order; null when one of them is of another namespace. */
  readonly [USES]: string | null;
}

type Building = Element & { [SPLIT]: SplitName | null; [USES]: string | null };

/** An ltx element of `tag` with these children (shared, not copied) and attributes. */
function element(tag: string, children: Element['children'], attributes: Readonly<Record<string, string>> | undefined, split: SplitName | null, uses: string | null): OutElement {
  const out = new Element(tag, attributes) as Building;
  out.children = children;
  out[SPLIT] = split;
  out[USES] = uses;
  return out as OutElement;
}

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
 * prefixed tag here; one of another namespace keeps its `{ns}local` name until `writeXml` gives
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
  // An empty text is an empty element (`<d:displayname/>`).
  const children = typeof content === 'string' ? (content === '' ? [] : [content]) : content === undefined ? [] : (content as OutElement[]);
  return element(tag, children, attributes, split, uses);
}

/** Notes our namespaces of `codes` in `used`, in their order (a namespace noted before keeps its place). */
function noteCodes(codes: string, used: Map<string, string>): void {
  for (const code of codes) {
    const ns = CODES[Number(code)]!;
    used.set(ns, PREFIX[ns]!);
  }
}

/**
 * Notes the namespaces of `e` and its descendants in `used` (in document order, each its prefix),
 * and answers `e` as it is to be written: `e` itself, or a copy with prefixed tags where an element
 * (or a descendant) is of a namespace not ours. Only subtrees holding such an element are walked.
 */
function prepared(e: OutElement, used: Map<string, string>): OutElement {
  const uses = e[USES];
  if (uses !== null) {
    noteCodes(uses, used);
    return e;
  }
  const split = e[SPLIT];
  let tag = e.name;
  if (split !== null) {
    const known = PREFIX[split.ns];
    if (known !== undefined) used.set(split.ns, known);
    else {
      let prefix = used.get(split.ns);
      if (prefix === undefined) prefix = `x${used.size}`;
      used.set(split.ns, prefix);
      tag = `${prefix}:${split.local}`;
    }
  }
  const kids = e.children;
  let newKids: Element['children'] | null = null;
  for (let i = 0; i < kids.length; i++) {
    const kid = kids[i]!;
    const k = typeof kid === 'string' ? kid : prepared(kid as OutElement, used);
    if (k !== kid && newKids === null) newKids = kids.slice(0, i);
    if (newKids !== null) newKids.push(k);
  }
  if (tag === e.name && newKids === null) return e;
  return element(tag, newKids ?? kids, e.attrs, split, null);
}

/** Writes a tree as an XML document (ltx escapes text and attribute values), declaring every namespace used at the root. */
export function writeXml(root: OutElement): string {
  const used = new Map<string, string>();
  const tree = prepared(root, used);
  const attributes: Record<string, string> = { ...(tree.attrs as Record<string, string>) };
  for (const [ns, prefix] of used) attributes[`xmlns:${prefix}`] = ns;
  return `<?xml version="1.0" encoding="utf-8"?>\n${element(tree.name, tree.children, attributes, tree[SPLIT], null).toString()}`;
}
