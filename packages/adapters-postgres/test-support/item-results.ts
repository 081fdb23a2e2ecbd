import type { ItemResult } from '@calsync/domain';

/** The version an applied item result reports; throws (with the result) for an error or a result without one. */
export function versionOf(result: ItemResult | undefined): string {
  if (!result || result.status === 'error' || result.version === null) throw new Error(`no version: ${JSON.stringify(result)}`);
  return result.version;
}
