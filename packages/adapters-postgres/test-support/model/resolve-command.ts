import type fc from 'fast-check';
import { both, type SyncModel, type SyncReal } from './sync-model.js';

/**
 * A user lists its conflicts and resolves the first one, if any: the list, the resolution (or its
 * error) must match the model's.
 */
export class ResolveCommand implements fc.AsyncCommand<SyncModel, SyncReal> {
  constructor(
    readonly user: number,
    readonly action: 'restore' | 'dismiss',
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: SyncModel, real: SyncReal): Promise<void> {
    const listed = await both(model, real, (sync) => sync.listConflicts(this.user, {}));
    const first = 'conflicts' in listed ? listed.conflicts[0] : undefined;
    if (first !== undefined) await both(model, real, (sync) => sync.resolveConflict(this.user, first.conflictId, this.action));
  }
  toString(): string {
    return `resolve(${this.user}, ${this.action})`;
  }
}
