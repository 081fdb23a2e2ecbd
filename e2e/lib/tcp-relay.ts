import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP relay on a loopback port in front of another loopback address, which the test can stall:
 * while stalled it forwards nothing in either direction and new connections wait (a network that
 * drops packets: no error, no answer); `resume` lets everything through again, late.
 */
export class TcpRelay {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #waiting: (() => void)[] = [];
  #stalled = false;
  port = 0;

  private constructor(target: { host: string; port: number }) {
    this.#server = createServer((client) => {
      this.#track(client);
      client.pause();
      const open = (): void => {
        if (client.destroyed) return;
        const upstream = connect(target.port, target.host);
        this.#track(upstream);
        client.pipe(upstream);
        upstream.pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
        if (this.#stalled) upstream.pause();
        else client.resume();
      };
      if (this.#stalled) this.#waiting.push(open);
      else open();
    });
  }

  /** Starts a relay to `target` on a free loopback port. */
  static async start(target: { host: string; port: number }): Promise<TcpRelay> {
    const relay = new TcpRelay(target);
    await new Promise<void>((resolve) => relay.#server.listen(0, '127.0.0.1', resolve));
    relay.port = (relay.#server.address() as { port: number }).port;
    return relay;
  }

  #track(socket: Socket): void {
    this.#sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => this.#sockets.delete(socket));
  }

  /** Stops forwarding: open connections carry nothing, new ones are accepted and wait. */
  stall(): void {
    this.#stalled = true;
    for (const s of this.#sockets) s.pause();
  }

  /** Forwards again: what waited is delivered, waiting connections go through. */
  resume(): void {
    this.#stalled = false;
    for (const s of this.#sockets) s.resume();
    for (const open of this.#waiting.splice(0)) open();
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
