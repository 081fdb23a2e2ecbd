/**
 * What PostgreSQL can store in a text column: UTF-8 without the NUL character. A JSON string may
 * hold `\u0000` or a lone UTF-16 surrogate (`\ud800`); PostgreSQL refuses the first (22P05) and the
 * driver would silently turn the second into U+FFFD. Both are refused at the edge instead, by every
 * route (HTTP hook) and by the push's per-item field checks, so no such text reaches the database.
 */

/** Why `text` cannot be stored as it is, or null when it can. */
export function unstorableTextReason(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain the NUL character (\\u0000)';
  if (LONE_SURROGATE.test(text)) return 'must be well-formed Unicode (no lone surrogate)';
  return null;
}

/** One string found by `findUnstorableText`: where it is (a JSON-pointer-like path) and why. */
export interface UnstorableText {
  readonly path: string;
  readonly message: string;
}

const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The first string (value or object key) anywhere in `value` that PostgreSQL cannot store, or
 * null. `path` prefixes the reported location (e.g. `body`). Walks with its own stack, so any
 * nesting depth the JSON parser accepted is fine.
 */
export function findUnstorableText(value: unknown, path: string): UnstorableText | null {
  const stack: [unknown, string][] = [[value, path]];
  while (stack.length > 0) {
    const [current, at] = stack.pop()!;
    if (typeof current === 'string') {
      const why = unstorableTextReason(current);
      if (why !== null) return { path: at, message: why };
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push([current[i], `${at}/${i}`]);
    } else if (current !== null && typeof current === 'object') {
      const entries = Object.entries(current);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, inner] = entries[i]!;
        const keyWhy = unstorableTextReason(key);
        if (keyWhy !== null) return { path: at, message: `a key ${keyWhy}` };
        stack.push([inner, `${at}/${key}`]);
      }
    }
  }
  return null;
}
