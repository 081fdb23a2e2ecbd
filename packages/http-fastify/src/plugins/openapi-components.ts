/** A JSON value as it appears in the generated document. */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** `anyOf` of one-value string enums (how a union of literals arrives) becomes one `enum`. */
function collapseStringEnum(schema: Record<string, Json>): void {
  const options = schema.anyOf;
  if (!Array.isArray(options) || options.length === 0) return;
  const values: string[] = [];
  for (const o of options) {
    if (o === null || typeof o !== 'object' || Array.isArray(o) || Object.keys(o).length !== 2 || o.type !== 'string') return;
    if (!Array.isArray(o.enum) || o.enum.length !== 1 || typeof o.enum[0] !== 'string') return;
    values.push(o.enum[0]);
  }
  delete schema.anyOf;
  schema.type = 'string';
  schema.enum = values;
}

/**
 * Moves every titled schema of the document into `components.schemas` under its title and puts a
 * `$ref` in its place, so generators name the types (Event, PushResult, Conflict...). The wire
 * schemas carry the titles; the routes keep using them inline, so validation is unchanged. Two
 * different schemas with one title are a bug in the wire package and fail loudly.
 */
export function hoistTitledSchemas<D extends object>(document: D, extra: Readonly<Record<string, Json>> = {}): D {
  const components: Record<string, Json> = {};
  const texts = new Map<string, string>();
  const visit = (value: Json, inSchema: boolean): Json => {
    if (Array.isArray(value)) return value.map((v) => visit(v, inSchema));
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, Json> = {};
    for (const [key, child] of Object.entries(value)) {
      // Examples are data, not schemas: a `title` inside one stays where it is.
      out[key] = key === 'example' || key === 'examples' ? child : visit(child, inSchema || key === 'schema');
    }
    collapseStringEnum(out);
    const title = out.title;
    if (!inSchema || typeof title !== 'string') return out;
    const text = JSON.stringify(out);
    const seen = texts.get(title);
    if (seen !== undefined && seen !== text) throw new Error(`two different schemas are titled ${title}`);
    texts.set(title, text);
    components[title] = out;
    return { $ref: `#/components/schemas/${title}` };
  };
  const doc = visit(document as Json, false) as Record<string, Json>;
  const existing = (doc.components ?? {}) as Record<string, Json>;
  const schemas = { ...((existing.schemas ?? {}) as Record<string, Json>), ...extra, ...components };
  const sorted = Object.fromEntries(Object.keys(schemas).sort().map((k) => [k, schemas[k] as Json]));
  return { ...doc, components: { ...existing, schemas: sorted } } as D;
}
