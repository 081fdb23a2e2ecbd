import { expect } from 'vitest';
import { RECORD_TYPES, type CursorCodec, type RecordRow, type SyncApi } from '@calsync/domain';
import type { InMemorySyncStore } from '@calsync/testkit';
import { canonicalAnswer, type DrawnNumbers } from './drawn-numbers.js';

/**
 * The model of the model-based engine test: the sync engine on the in-memory store, with each
 * user's last pull cursor. Every command runs on it and on the real system and compares answers.
 */
export interface SyncModel {
  readonly sync: SyncApi;
  readonly store: InMemorySyncStore;
  readonly cursors: Map<number, string>;
  /** What the model's store handed out (answers are compared in canonical numbers). */
  readonly numbers: DrawnNumbers;
  /** The cursor codec of both systems (cursors are compared by their canonical watermarks). */
  readonly codec: CursorCodec;
}

/** The real system: the same engine on a SQL store, with its own cursors. */
export interface SyncReal {
  readonly sync: SyncApi;
  readonly cursors: Map<number, string>;
  readonly numbers: DrawnNumbers;
  /** Every row of a user and type (live and tombstones), ascending by version. */
  rows(userId: number, type: RecordRow['type']): Promise<RecordRow[]>;
}

/** Which system a call of `both` runs on. */
export type Side = 'model' | 'real';

/**
 * Runs the same call of user `userId` on the model and the real system; their answers (or error
 * codes) must be equal, versions and ids compared in canonical form (`DrawnNumbers`). Answers the
 * model's.
 */
export async function both<T>(
  model: SyncModel,
  real: SyncReal,
  userId: number,
  call: (sync: SyncApi, cursors: Map<number, string>, side: Side) => Promise<T>,
): Promise<T | { error: unknown }> {
  const outcome = (p: Promise<T>) => p.catch((e: unknown) => ({ error: (e as { code?: unknown }).code ?? String(e) }));
  const expected = await outcome(call(model.sync, model.cursors, 'model'));
  const actual = await outcome(call(real.sync, real.cursors, 'real'));
  expect(canonicalAnswer(actual, real.numbers, model.codec, userId)).toEqual(canonicalAnswer(expected, model.numbers, model.codec, userId));
  return expected;
}

/** The stored rows of both systems are the same (checked after every run), versions and ids in canonical form. */
export async function expectSameRows(model: SyncModel, real: SyncReal, users: readonly number[]): Promise<void> {
  for (const user of users) {
    for (const type of RECORD_TYPES) {
      const expected = model.store.snapshotRows(user, type).sort((x, y) => (x.version < y.version ? -1 : 1));
      const actual = await real.rows(user, type);
      expect(canonicalAnswer(actual, real.numbers, model.codec, user)).toEqual(canonicalAnswer(expected, model.numbers, model.codec, user));
    }
  }
}
