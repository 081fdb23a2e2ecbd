import { expect } from 'vitest';
import { RECORD_TYPES, type RecordRow, type SyncApi } from '@calsync/domain';
import type { InMemorySyncStore } from '@calsync/testkit';

/**
 * The model of the model-based engine test: the sync engine on the in-memory store, with each
 * user's last pull cursor. Every command runs on it and on the real system and compares answers.
 */
export interface SyncModel {
  readonly sync: SyncApi;
  readonly store: InMemorySyncStore;
  readonly cursors: Map<number, string>;
}

/** The real system: the same engine on a SQL store, with its own cursors. */
export interface SyncReal {
  readonly sync: SyncApi;
  readonly cursors: Map<number, string>;
  /** Every row of a user and type (live and tombstones), ascending by version. */
  rows(userId: number, type: RecordRow['type']): Promise<RecordRow[]>;
}

/** Runs the same call on the model and the real system; their answers (or error codes) must be equal. */
export async function both<T>(model: SyncModel, real: SyncReal, call: (sync: SyncApi, cursors: Map<number, string>) => Promise<T>): Promise<T | { error: unknown }> {
  const outcome = (p: Promise<T>) => p.catch((e: unknown) => ({ error: (e as { code?: unknown }).code ?? String(e) }));
  const expected = await outcome(call(model.sync, model.cursors));
  const actual = await outcome(call(real.sync, real.cursors));
  expect(actual).toEqual(expected);
  return expected;
}

/** The stored rows of both systems are the same (checked after every run). */
export async function expectSameRows(model: SyncModel, real: SyncReal, users: readonly number[]): Promise<void> {
  for (const user of users) {
    for (const type of RECORD_TYPES) {
      const expected = model.store.snapshotRows(user, type).sort((x, y) => (x.version < y.version ? -1 : 1));
      expect(await real.rows(user, type)).toEqual(expected);
    }
  }
}
