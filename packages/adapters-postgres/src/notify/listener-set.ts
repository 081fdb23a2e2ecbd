import type { ChangeFeedListener } from '@calsync/domain';
import { decodePayload } from './change-payload.js';

/** The subscribers of a feed and the dispatch of raw payloads to them (shared by both feeds). */
export class ListenerSet {
  readonly #listeners = new Set<ChangeFeedListener>();

  add(listener: ChangeFeedListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Decodes one NOTIFY payload and hands it to every subscriber; garbage is dropped. */
  dispatch(payload: string): void {
    const message = decodePayload(payload);
    if (message === null) return;
    for (const l of [...this.#listeners]) {
      if (message.kind === 'changed') l.changed(message.change);
      else if (message.kind === 'alert') l.alerted?.(message.alert);
      else l.sessionEnded(message.end);
    }
  }

  resynced(): void {
    for (const l of [...this.#listeners]) l.resynced();
  }
}
