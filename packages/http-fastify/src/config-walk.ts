import type { AllOrNoneGroup, ConfigNode, ConfigTree, ConfigVar } from './config-table.js';
import { CONFIG_TABLE } from './config-table.js';
import type { ConfigOf, ValuesByName } from './config-types.js';

// The generic walk over the configuration tree: parse each variable, list them, rebuild the shape.

/** Parses `15m`, `90d`, `12h`, `30s` or plain seconds (`3600`) into seconds; null when malformed. */
export function parseDurationSeconds(text: string): number | null {
  const m = /^(\d{1,9})([smhd]?)$/.exec(text.trim());
  if (!m) return null;
  const n = Number(m[1]);
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] ?? ''] ?? 1;
  const seconds = n * unit;
  return seconds > 0 ? seconds : null;
}

type Parsed = string | number | boolean | string[];

/** One line of a configuration problem about `v`. */
export function problem(v: ConfigVar, why: string): string {
  return `Invalid configuration: ${v.name} ${why}`;
}

/** The parsed value, or the one-line problem with it. */
function parseOne(v: ConfigVar, raw: string): { value: Parsed } | { problem: string } {
  const bad = (why: string) => ({ problem: problem(v, why) });
  switch (v.type) {
    case 'integer': {
      if (!/^-?\d+$/.test(raw)) return bad(`must be an integer (got "${raw.slice(0, 40)}")`);
      const n = Number(raw);
      if ((v.min !== undefined && n < v.min) || (v.max !== undefined && n > v.max)) return bad(`must be between ${v.min} and ${v.max} (got ${raw})`);
      return { value: n };
    }
    case 'duration': {
      const s = parseDurationSeconds(raw);
      return s === null ? bad(`must be a duration such as 15m, 90d or 3600 (got "${raw.slice(0, 40)}")`) : { value: s };
    }
    case 'enum':
      return v.values?.includes(raw) ? { value: raw } : bad(`must be one of ${v.values?.join(', ')} (got "${raw.slice(0, 40)}")`);
    case 'url': {
      const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1]?.toLowerCase();
      if (!scheme || !v.schemes?.includes(scheme)) return bad(`must be a URL starting with ${v.schemes?.map((s) => `${s}://`).join(' or ')}`);
      if (scheme !== 'pglite' && !URL.canParse(raw)) return bad('is not a valid URL');
      return { value: raw };
    }
    case 'origins': {
      if (raw === 'true') return { value: true };
      if (raw === 'false') return { value: false };
      if (raw === '*') return { value: '*' };
      const list = raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
      const wrong = list.find((origin) => !/^https?:\/\/[^/\s]+$/.test(origin));
      if (wrong !== undefined) return bad(`must be *, true, false or http(s) origins without a path (got "${wrong.slice(0, 60)}")`);
      return { value: list.length === 1 ? (list[0] as string) : list };
    }
    case 'secret':
    case 'string':
      return { value: raw };
  }
}

const isVar = (node: ConfigNode): node is ConfigVar => typeof (node as { name?: unknown }).name === 'string';
const isAllOrNone = (node: ConfigNode): node is AllOrNoneGroup => !isVar(node) && typeof (node as { allOrNone?: unknown }).allOrNone === 'object';

/** Every variable of a tree in table order (README, compose check and the loader's walk use it). */
export function varsOf(tree: ConfigTree): ConfigVar[] {
  return Object.values(tree).flatMap((node) => (isVar(node) ? [node] : isAllOrNone(node) ? Object.values(node.allOrNone) : varsOf(node)));
}

/** The all-or-none groups of a tree, each as its list of variables. */
export function allOrNoneGroupsOf(tree: ConfigTree): ConfigVar[][] {
  return Object.values(tree).flatMap((node) => (isVar(node) ? [] : isAllOrNone(node) ? [Object.values(node.allOrNone)] : allOrNoneGroupsOf(node)));
}

/** Every variable of the service, flat. */
export const CONFIG_VARS: readonly ConfigVar[] = varsOf(CONFIG_TABLE);

/** Reads and parses every variable of `tree` from `env` (defaults applied); each bad one adds a problem. */
export function readValues<T extends ConfigTree>(tree: T, env: Readonly<Record<string, string | undefined>>, problems: string[]): ValuesByName<T> {
  const values: Record<string, Parsed> = {};
  for (const v of varsOf(tree)) {
    const given = env[v.name]?.trim();
    const text = given === undefined || given === '' ? v.default : given;
    if (text === undefined) continue;
    const parsed = parseOne(v, text);
    if ('problem' in parsed) problems.push(parsed.problem);
    else values[v.name] = parsed.value;
  }
  // The walk above produced exactly one entry per variable name of `tree`, typed by its variable.
  return values as ValuesByName<T>;
}

/** Puts the values back into the tree's shape: all-or-none groups become an object or null. */
export function shape<T extends ConfigTree>(tree: T, values: ValuesByName<T>): ConfigOf<T> {
  const byName = values as Readonly<Record<string, Parsed | undefined>>;
  const walk = (node: ConfigTree): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(node).map(([key, child]) => {
        if (isVar(child)) return [key, byName[child.name]];
        if (isAllOrNone(child)) {
          const group = Object.entries(child.allOrNone);
          return [key, group.every(([, v]) => byName[v.name] !== undefined) ? Object.fromEntries(group.map(([k, v]) => [k, byName[v.name]])) : null];
        }
        return [key, walk(child)];
      }),
    );
  // `walk` mirrors ConfigOf<T> node by node; the rules have filled every generated variable.
  return walk(tree) as ConfigOf<T>;
}

