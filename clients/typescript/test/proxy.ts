/**
 * A TCP proxy on a loopback port in front of another, that a test can cut: `drop()` destroys
 * every connection through it, and `block()` also refuses new ones (each is closed at once) until
 * `unblock()`. A client behind it sees what a network failure looks like: a reset connection.
 */

import { once } from "node:events";
import { createConnection, createServer } from "node:net";
import type { Server, Socket } from "node:net";

export class Proxy {
  /** Connections accepted so far (refused ones included). */
  accepted = 0;
  private readonly sockets = new Set<Socket>();
  private blocked = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number): Promise<Proxy> {
    let proxy: Proxy | undefined;
    const server = createServer((client) => {
      if (proxy === undefined) {
        client.destroy();
        return;
      }
      proxy.accepted++;
      if (proxy.blocked) {
        client.resetAndDestroy();
        return;
      }
      const upstream = createConnection({ host: "127.0.0.1", port: targetPort });
      const sockets = proxy.sockets;
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
        socket.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const address = server.address();
    if (address === null || typeof address === "string") {
      throw new Error("no port");
    }
    proxy = new Proxy(server, address.port);
    return proxy;
  }

  /** The connections open through the proxy now. */
  get open(): number {
    return this.sockets.size / 2;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Cuts every open connection (a reset, as a network failure shows it); how many were open. */
  drop(): number {
    const open = this.open;
    for (const socket of this.sockets) {
      socket.resetAndDestroy();
    }
    this.sockets.clear();
    return open;
  }

  /** Cuts every connection and refuses new ones until {@link unblock}; how many were open. */
  block(): number {
    this.blocked = true;
    return this.drop();
  }

  unblock(): void {
    this.blocked = false;
  }

  async stop(): Promise<void> {
    this.drop();
    this.server.close();
    await once(this.server, "close");
  }
}
