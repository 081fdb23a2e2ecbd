import type fc from 'fast-check';
import { expect } from 'vitest';
import type { PushChangeset, PushResponse } from '@calsync/domain';
import { canonicalAnswer } from './drawn-numbers.js';
import type { SyncModel, SyncReal } from './sync-model.js';

type Outcome = PushResponse | { error: unknown };
const outcome = (p: Promise<PushResponse>): Promise<Outcome> => p.catch((e: unknown) => ({ error: (e as { code?: unknown }).code ?? String(e) }));

/**
 * A user's pushes arrive together: the real system gets them all at once (the first runs, the
 * others queue and are committed as one group), the model one after another in the same order.
 * Each push's answer must be the model's.
 */
export class GroupPushCommand implements fc.AsyncCommand<SyncModel, SyncReal> {
  constructor(
    readonly user: number,
    readonly pushes: readonly PushChangeset[],
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: SyncModel, real: SyncReal): Promise<void> {
    const expected: Outcome[] = [];
    for (const changes of this.pushes) expected.push(await outcome(model.sync.push(this.user, changes)));
    const actual = await Promise.all(this.pushes.map((changes) => outcome(real.sync.push(this.user, changes))));
    expect(canonicalAnswer(actual, real.numbers, model.codec, this.user)).toEqual(canonicalAnswer(expected, model.numbers, model.codec, this.user));
  }
  toString(): string {
    return `groupPush(${this.user}, ${JSON.stringify(this.pushes)})`;
  }
}
