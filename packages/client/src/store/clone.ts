/** Depth past which a value is handed to `structuredClone` whole (stored values are far shallower; a cycle is not). */
const MAX_DEPTH = 64;

/**
 * A deep copy of a value to store, equal to what `structuredClone` makes of it, and throwing where
 * it throws. Plain data (objects, arrays and primitives: what records, outbox items and metadata
 * are made of) is copied here, property by property: `structuredClone` serializes and deserializes
 * every value, which made copying the writes of a memory store a tenth of an SDK device's CPU.
 * Anything else (a Date, a Map, a function, a cycle) goes to `structuredClone`, which copies it or
 * refuses it as IndexedDB would.
 */
export function cloneStored<T>(value: T): T {
  return copy(value, 0) as T;
}

function copy(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) {
    // Primitives are values; a function or a symbol is refused by structuredClone.
    return typeof value === 'function' || typeof value === 'symbol' ? structuredClone(value) : value;
  }
  if (depth >= MAX_DEPTH) return structuredClone(value);
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return structuredClone(value);
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) if (i in value) out[i] = copy(value[i], depth + 1); // a hole stays a hole
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = copy((value as Record<string, unknown>)[key], depth + 1);
    // An own "__proto__" is data, as structuredClone keeps it; assigned, it would set the prototype.
    if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else out[key] = v;
  }
  return out;
}
