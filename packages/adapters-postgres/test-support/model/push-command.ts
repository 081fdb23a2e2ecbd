import type fc from 'fast-check';
import type { PushChangeset } from '@calsync/domain';
import { both, type SyncModel, type SyncReal } from './sync-model.js';

/** A user pushes a changeset: the per-item results and conflicts must match the model's. */
export class PushCommand implements fc.AsyncCommand<SyncModel, SyncReal> {
  constructor(
    readonly user: number,
    readonly changes: PushChangeset,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: SyncModel, real: SyncReal): Promise<void> {
    await both(model, real, this.user, (sync) => sync.push(this.user, this.changes));
  }
  toString(): string {
    return `push(${this.user}, ${JSON.stringify(this.changes)})`;
  }
}
