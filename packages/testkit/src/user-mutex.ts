/**
 * One async lock per key: work for the same key runs one at a time in arrival order, work for
 * different keys never waits on each other (the in-memory stand-in for pg_advisory_xact_lock).
 */
export class KeyedMutex<K> {
  readonly #tails = new Map<K, Promise<void>>();

  async run<T>(key: K, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.#tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
