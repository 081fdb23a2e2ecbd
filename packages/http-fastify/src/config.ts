import type { ConfigTree } from './config-table.js';
import { CONFIG_TABLE } from './config-table.js';
import type { AppConfig, ConfigOf } from './config-types.js';
import { applyConfigRules } from './config-rules.js';
import { readValues, shape } from './config-walk.js';

export { CONFIG_TABLE, type ConfigVar } from './config-table.js';
export { CONFIG_VARS, parseDurationSeconds } from './config-walk.js';

/**
 * Configuration problems, each one line naming its variable and safe to print (no secret values).
 * `message` holds them all, one per line, so an operator fixes everything after one start.
 */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

/** The configuration plus warnings to log once a logger exists (e.g. development secrets generated). */
export interface LoadedConfig {
  readonly config: AppConfig;
  readonly warnings: readonly string[];
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads and validates the whole configuration from `env` (main passes `process.env`; nothing else
 * reads it). Every problem is collected and thrown at once as one ConfigError. In production,
 * missing secrets or SMS gateway refuse start-up; elsewhere secrets get random per-process values
 * (tokens and cursors then die with the process) and a warning.
 */
export function loadConfig(env: Env): LoadedConfig {
  const problems: string[] = [];
  const values = readValues(CONFIG_TABLE, env, problems);
  const warnings = applyConfigRules(values, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return { config: shape(CONFIG_TABLE, values), warnings };
}

/**
 * Reads only the variables of `tree` (a piece of CONFIG_TABLE), with their own checks but none of
 * the service-wide rules: for a command such as `migrate` that needs a few variables.
 */
export function loadConfigSection<T extends ConfigTree>(tree: T, env: Env): ConfigOf<T> {
  const problems: string[] = [];
  const values = readValues(tree, env, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return shape(tree, values);
}
