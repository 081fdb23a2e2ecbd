/**
 * The one rule for an integer written in a URL (a path parameter or a query value): optional `-`,
 * then decimal digits without leading zeros (`0` alone), within ±(2^53 − 1), so it is the number it
 * reads as. Anything else (`Infinity`, `NaN`, `1e3`, `0x10`, `-0`, ` 12`, `007`, 400 digits,
 * 9007199254740993) is not an integer: the request is 400 VALIDATION_ERROR. Ajv's own coercion is
 * not used for these values, because it reads `Infinity` and `0x10` as numbers.
 */
const INTEGER_TEXT = /^(0|-?[1-9][0-9]{0,15})$/;

/** The integer `text` spells, or null when it is not one by the rule above. */
export function parseIntegerParam(text: string): number | null {
  if (!INTEGER_TEXT.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

/** A JSON schema as the validator compiler sees it: an object schema's properties and their types. */
interface ObjectSchema {
  readonly type?: unknown;
  readonly properties?: Readonly<Record<string, { readonly type?: unknown }>>;
}

/**
 * The names of the integer properties of a path or query schema. Every property of such a schema is
 * text on the wire: a string stays as it is, an integer is read by `parseIntegerParam`; any other
 * type would need a rule of its own, so it is refused when the route is registered.
 */
export function integerParamNames(schema: unknown): string[] {
  const properties = (schema as ObjectSchema | null)?.properties ?? {};
  const names: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    if (property.type === 'integer') names.push(name);
    else if (property.type !== 'string') throw new Error(`path and query values are strings or integers; "${name}" has type ${JSON.stringify(property.type)}`);
  }
  return names;
}

/** Replaces each named value that spells an integer by that integer; any other value is left for the schema to refuse. */
export function readIntegerParams(data: unknown, names: readonly string[]): void {
  if (names.length === 0 || data === null || typeof data !== 'object') return;
  const values = data as Record<string, unknown>;
  for (const name of names) {
    const raw = values[name];
    if (typeof raw !== 'string') continue;
    const value = parseIntegerParam(raw);
    if (value !== null) values[name] = value;
  }
}
