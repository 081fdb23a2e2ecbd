import type fc from 'fast-check';
import { both, type Side, type SyncModel, type SyncReal } from './sync-model.js';

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
    const listed = await both(model, real, this.user, (sync) => sync.listConflicts(this.user, {}));
    const first = 'conflicts' in listed ? listed.conflicts[0] : undefined;
    if (first === undefined) return;
    // The same conflict on each system: the real one's id at the model's id's canonical place.
    const place = model.numbers.canonical('conflict', first.conflictId);
    const idOn = (side: Side): number => (side === 'model' ? first.conflictId : Number(real.numbers.valueAt('conflict', place)));
    await both(model, real, this.user, (sync, _cursors, side) => sync.resolveConflict(this.user, idOn(side), this.action));
  }
  toString(): string {
    return `resolve(${this.user}, ${this.action})`;
  }
}
