import type { RenderStore } from '@calsync/domain';
import { describe, expect, it } from 'vitest';

/** What the render contract needs from one adapter: a store and users to own texts (SQL stores reference users). */
export interface RenderHarness {
  readonly renders: RenderStore;
  createUser(): Promise<number>;
  close(): Promise<void>;
}

/** The `RenderStore` guarantees (ports/render-store.ts), the same cases for every adapter. */
export function runRenderStoreContract(name: string, open: () => Promise<RenderHarness>): void {
  describe(`render store contract: ${name}`, () => {
    it('keeps one text per root uid (a new one replaces the old), reads only the asked uids, never across users, and drops', async () => {
      const h = await open();
      try {
        const [a, b] = [await h.createUser(), await h.createUser()];
        await h.renders.keepRenders(a, [
          { uid: 'e1', key: 'k1', text: 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n' },
          { uid: 'e2', key: 'k2', text: 'two' },
        ]);
        await h.renders.keepRenders(b, [{ uid: 'e1', key: 'kb', text: 'theirs' }]);
        await h.renders.keepRenders(a, [{ uid: 'e1', key: 'k1b', text: 'one again' }]);
        const read = async (user: number, uids: string[]) => (await h.renders.readRenders(user, uids)).sort((x, y) => x.uid.localeCompare(y.uid));
        expect(await read(a, ['e1', 'e2', 'e3'])).toEqual([
          { uid: 'e1', key: 'k1b', text: 'one again' },
          { uid: 'e2', key: 'k2', text: 'two' },
        ]);
        expect(await read(a, ['e2'])).toEqual([{ uid: 'e2', key: 'k2', text: 'two' }]);
        expect(await read(b, ['e1', 'e2'])).toEqual([{ uid: 'e1', key: 'kb', text: 'theirs' }]);
        expect(await read(a, [])).toEqual([]);
        await h.renders.dropRenders(a, ['e1']);
        expect(await read(a, ['e1', 'e2'])).toEqual([{ uid: 'e2', key: 'k2', text: 'two' }]);
        expect(await read(b, ['e1'])).toEqual([{ uid: 'e1', key: 'kb', text: 'theirs' }]);
        // The same uid twice in one call keeps the last.
        await h.renders.keepRenders(a, [
          { uid: 'e4', key: 'x', text: 'first' },
          { uid: 'e4', key: 'y', text: 'last' },
        ]);
        expect(await read(a, ['e4'])).toEqual([{ uid: 'e4', key: 'y', text: 'last' }]);
      } finally {
        await h.close();
      }
    });
  });
}
