import { CompiledQuery } from 'kysely';

/** One statement of a batch: its text and its parameter values ($1, $2, …), as Kysely compiles them. */
export interface BatchPart {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/**
 * Statements a unit of work sends in one round trip, in order; the batch answers with the last
 * statement's rows. A failing statement fails the batch and leaves the ones after it unrun (inside
 * the unit's transaction, which is then rolled back). It travels to the driver as the only
 * parameter of a marker query, so it passes through Kysely (and the fault mapping) unchanged; each
 * driver knows how to run it (`PreparingClient`, the PGlite dialect).
 */
export class StatementBatch {
  constructor(readonly parts: readonly BatchPart[]) {}
}

const MARKER = '/* calsync statement batch */';

/** The query that carries `parts` to the driver. */
export function batchQuery(parts: readonly BatchPart[]): CompiledQuery {
  return CompiledQuery.raw(MARKER, [new StatementBatch(parts)]);
}

/** The batch a query carries, or null for an ordinary query. */
export function batchOf(sql: string, parameters: readonly unknown[] | undefined): StatementBatch | null {
  return sql === MARKER && parameters?.length === 1 && parameters[0] instanceof StatementBatch ? parameters[0] : null;
}

/** A statement without parameters (BEGIN, the user lock, NOTIFY, COMMIT). */
export function rawPart(sql: string): BatchPart {
  return { sql, parameters: [] };
}

const NEEDS_ESCAPE = /['\\]/;

/**
 * A string as a SQL literal: `'…'` with quotes doubled, or `E'…'` with backslashes doubled too
 * when it holds one (the form node-pg's escapeLiteral writes). Strings never hold NUL: the domain
 * refuses it before anything reaches the store.
 */
function escapeLiteral(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return `'${text}'`;
  const quoted = text.replace(/'/g, "''");
  return text.includes('\\') ? `E'${quoted.replace(/\\/g, '\\\\')}'` : `'${quoted}'`;
}

const ARRAY_ELEMENT_ESCAPE = /["\\]/g;

/** One-dimensional array text (`{"a","b",NULL}`), each element quoted, as node-pg sends an array parameter. */
function arrayText(values: readonly unknown[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const v = values[i];
    if (v === null || v === undefined) out += 'NULL';
    else if (Array.isArray(v)) throw new Error('nested arrays are not sent as batch literals');
    else out += `"${valueText(v).replace(ARRAY_ELEMENT_ESCAPE, '\\$&')}"`;
  }
  return `${out}}`;
}

/** The text form of a non-null parameter value, as node-pg would send it. */
function valueText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(value);
    case 'object':
      if (value instanceof Date) return value.toISOString();
      if (Array.isArray(value)) return arrayText(value);
      return JSON.stringify(value);
    default:
      throw new Error(`a ${typeof value} cannot be sent as a batch literal`);
  }
}

/**
 * A parameter value as an untyped SQL literal (NULL or a quoted text), which PostgreSQL reads as
 * the type the statement gives the parameter, exactly as it reads the text form of a bound value.
 */
export function parameterLiteral(value: unknown): string {
  return value === null || value === undefined ? 'NULL' : escapeLiteral(valueText(value));
}
