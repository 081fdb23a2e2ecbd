import { createHmac, randomBytes } from 'node:crypto';
import type { CONFIG_TABLE } from './config-table.js';
import type { ValuesByName } from './config-types.js';
import { CONFIG_VARS, allOrNoneGroupsOf, problem } from './config-walk.js';
import { CONFIG_TABLE as TABLE } from './config-table.js';

/** The parsed variables of the service by name, as the rules see them (before generated values). */
export type ConfigValues = ValuesByName<typeof CONFIG_TABLE>;

const nameOf = (line: string): string => /^Invalid configuration: (\S+)/.exec(line)?.[1] ?? '';

/**
 * The rules that span several variables, all in one place: production requirements, secret
 * strength, all-or-none groups, generated secrets. Adds one line per problem to `problems` (never
 * two lines for one variable) and fills generated variables in `values`; returns warnings to log.
 */
export function applyConfigRules(values: ConfigValues, problems: string[]): string[] {
  const warnings: string[] = [];
  const byName: Record<string, unknown> = values;
  const reported = new Set(problems.map(nameOf));
  const report = (line: string): void => {
    if (reported.has(nameOf(line))) return;
    reported.add(nameOf(line));
    problems.push(line);
  };
  const isProduction = values.NODE_ENV === 'production';

  if (isProduction) {
    for (const v of CONFIG_VARS) {
      const value = byName[v.name];
      if (v.requiredInProduction && value === undefined) report(problem(v, 'is required when NODE_ENV=production'));
      if (v.minLengthInProduction !== undefined && typeof value === 'string' && value.length < v.minLengthInProduction) {
        report(problem(v, `must be at least ${v.minLengthInProduction} characters when NODE_ENV=production`));
      }
    }
    if (values.JWT_SECRET !== undefined && values.JWT_SECRET === values.JWT_REFRESH_SECRET) {
      report(problem(TABLE.jwt.refreshSecret, 'must differ from JWT_SECRET'));
    }
  }

  for (const group of allOrNoneGroupsOf(TABLE)) {
    const set = group.filter((v) => byName[v.name] !== undefined).map((v) => v.name);
    if (set.length === 0 || set.length === group.length) continue;
    for (const v of group) {
      if (byName[v.name] === undefined) report(problem(v, `is required when ${set.join(', ')} ${set.length === 1 ? 'is' : 'are'} set`));
    }
  }
  if (values.SMS_ALLOWED_COUNTRIES !== undefined && !/^\s*\+?[1-9][0-9]{0,2}\s*(,\s*\+?[1-9][0-9]{0,2}\s*)*$/.test(values.SMS_ALLOWED_COUNTRIES)) {
    report(problem(TABLE.otp.allowedCountries, `must be country calling codes separated by commas, such as 1,44,49 (got "${values.SMS_ALLOWED_COUNTRIES.slice(0, 40)}")`));
  }
  if (values.SMS_GATEWAY_URL === undefined && !isProduction) warnings.push('SMS_GATEWAY_URL is not set: one-time codes are written to the log instead of being sent');

  for (const v of CONFIG_VARS) {
    if (v.generated !== 'random' || byName[v.name] !== undefined) continue;
    byName[v.name] = randomBytes(32).toString('base64url');
    if (!isProduction) warnings.push(`${v.name} is not set: using a random value for this process only (tokens and cursors stop working when it exits); set it to keep them across restarts`);
  }
  // One-time codes must verify on every node and across restarts: without OTP_SECRET, key them from JWT_SECRET.
  values.OTP_SECRET ??= createHmac('sha256', values.JWT_SECRET ?? '').update('calsync otp codes').digest('base64url');
  return warnings;
}
