import type fc from 'fast-check';
import { both, type SyncModel, type SyncReal } from './sync-model.js';

/** A user pulls one page from its last cursor: the page, flags and cursor must match the model's. */
export class PullCommand implements fc.AsyncCommand<SyncModel, SyncReal> {
  constructor(
    readonly user: number,
    readonly limit: number,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: SyncModel, real: SyncReal): Promise<void> {
    await both(model, real, this.user, async (sync, cursors) => {
      const page = await sync.pull(this.user, { cursor: cursors.get(this.user), limit: this.limit });
      cursors.set(this.user, page.nextCursor);
      return page;
    });
  }
  toString(): string {
    return `pull(${this.user}, limit ${this.limit})`;
  }
}
