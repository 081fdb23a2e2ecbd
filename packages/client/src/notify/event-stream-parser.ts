/** One dispatched server-sent event. */
export interface ServerSentEvent {
  readonly event: string;
  readonly data: string;
  readonly id: string | null;
}

/**
 * Incremental parser of the text/event-stream format (fields `event`, `data`, `id`; comments and
 * other fields ignored; CR, LF or CRLF line ends), fed decoded chunks as they arrive. A few lines
 * of our own: the parser packages on npm publish their TypeScript sources under the `source`
 * export condition, which this workspace uses for its own packages, so they would be compiled as
 * part of the client.
 */
export class EventStreamParser {
  #buffer = '';
  #event = '';
  #data: string[] = [];
  #id: string | null = null;

  constructor(private readonly onEvent: (event: ServerSentEvent) => void) {}

  feed(chunk: string): void {
    this.#buffer += chunk;
    for (;;) {
      const end = this.#buffer.search(/\r\n|\r|\n/);
      if (end < 0) return;
      // A lone CR at the end of a chunk may be half of a CRLF: wait for the next chunk.
      if (this.#buffer[end] === '\r' && end === this.#buffer.length - 1) return;
      const line = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + (this.#buffer.startsWith('\r\n', end) ? 2 : 1));
      this.#line(line);
    }
  }

  #line(line: string): void {
    if (line === '') {
      if (this.#data.length > 0) this.onEvent({ event: this.#event || 'message', data: this.#data.join('\n'), id: this.#id });
      this.#event = '';
      this.#data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') this.#event = value;
    else if (field === 'data') this.#data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.#id = value;
  }
}
