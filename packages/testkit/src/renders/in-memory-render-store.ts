import type { KeptRender, RenderStore } from '@calsync/domain';

/** RenderStore in memory. */
export class InMemoryRenderStore implements RenderStore {
  readonly #renders = new Map<string, KeptRender>();

  async readRenders(userId: number, uids: readonly string[]): Promise<KeptRender[]> {
    return uids.flatMap((uid) => this.#renders.get(`${userId}/${uid}`) ?? []);
  }

  async keepRenders(userId: number, renders: readonly KeptRender[]): Promise<void> {
    for (const r of renders) this.#renders.set(`${userId}/${r.uid}`, { uid: r.uid, key: r.key, text: r.text });
  }

  async dropRenders(userId: number, uids: readonly string[]): Promise<void> {
    for (const uid of uids) this.#renders.delete(`${userId}/${uid}`);
  }
}
