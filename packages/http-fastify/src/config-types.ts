import type { AllOrNoneGroup, CONFIG_TABLE, ConfigTree, ConfigVar } from './config-table.js';

/** The parsed value of one variable, by its type (an enum's value is the union of its values). */
export type VarValue<V extends ConfigVar> = V extends { readonly type: 'integer' | 'duration' }
  ? number
  : V extends { readonly type: 'enum'; readonly values: readonly (infer E extends string)[] }
    ? E
    : V extends { readonly type: 'origins' }
      ? string | string[] | boolean
      : string;

/** A variable with a default or a generated value is always present; any other may be undefined. */
type LoadedVar<V extends ConfigVar> = V extends { readonly default: string } | { readonly generated: string } ? VarValue<V> : VarValue<V> | undefined;

/** The loaded configuration of a tree: same shape, each variable replaced by its value. */
export type ConfigOf<T> = T extends ConfigVar
  ? LoadedVar<T>
  : T extends AllOrNoneGroup
    ? { readonly [K in keyof T['allOrNone']]: VarValue<T['allOrNone'][K]> } | null
    : { readonly [K in keyof T]: ConfigOf<T[K]> };

/** Every variable (leaf) of a tree, as a union. */
export type VarsOf<T, Depth extends unknown[] = []> = Depth['length'] extends 4
  ? never
  : T extends ConfigVar
    ? T
    : T extends AllOrNoneGroup
      ? T['allOrNone'][keyof T['allOrNone']]
      : T extends ConfigTree
        ? { [K in keyof T]: VarsOf<T[K], [...Depth, unknown]> }[keyof T]
        : never;

/** The parsed values by environment variable name, before the rules ran: any of them may be missing. */
export type ValuesByName<T> = { -readonly [V in VarsOf<T> as V['name']]?: VarValue<V> };

/**
 * The validated configuration of the service, derived from CONFIG_TABLE. `config.ts` builds it from
 * the environment once, at start-up; everything else receives it as a value.
 */
export type AppConfig = ConfigOf<typeof CONFIG_TABLE>;
