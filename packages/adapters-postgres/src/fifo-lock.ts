/**
 * A first-in, first-out mutex. The PGlite driver puts its one connection behind it so that
 * Kysely transactions (and the units of work built on them) run one after another.
 */
export class FifoLock {
  #tail: Promise<void> = Promise.resolve();

  /** Waits for every earlier holder to release, then returns this holder's release function. */
  async acquire(): Promise<() => void> {
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = this.#tail;
    this.#tail = previous.then(() => mine);
    await previous;
    let released = false;
    return () => {
      if (!released) {
        released = true;
        release();
      }
    };
  }
}
