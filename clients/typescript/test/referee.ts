/**
 * A real referee process for the tests: the Python service started as an operator starts it
 * (`python -m hanafuda_referee.cli serve`), games in its in-process store, on free loopback
 * ports, with the creation rate limit off unless a test sets one. The Python interpreter is
 * `HANAFUDA_PYTHON` (the pytest wrapper passes its own), else `python3` on the PATH.
 */

import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";

/** A loopback port nobody listens on now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  await once(server, "close");
  if (address === null || typeof address === "string") {
    throw new Error("no port");
  }
  return address.port;
}

export class Referee {
  private output = "";

  private constructor(
    private readonly process: ChildProcess,
    readonly httpPort: number,
    readonly grpcPort: number,
  ) {
    process.stdout?.on("data", (chunk: Buffer) => (this.output += chunk.toString()));
    process.stderr?.on("data", (chunk: Buffer) => (this.output += chunk.toString()));
  }

  get httpUrl(): string {
    return `http://127.0.0.1:${this.httpPort}`;
  }

  get grpcUrl(): string {
    return `http://127.0.0.1:${this.grpcPort}`;
  }

  /** Everything the process printed so far (for failure messages). */
  get log(): string {
    return this.output;
  }

  /** Starts a referee and waits until `/readyz` answers 200. `env` adds settings. */
  static async start(env: Record<string, string> = {}): Promise<Referee> {
    const httpPort = await freePort();
    let grpcPort = await freePort();
    while (grpcPort === httpPort) {
      grpcPort = await freePort();
    }
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.startsWith("HANAFUDA_") && key !== "REDIS_URL"),
    );
    const python = process.env["HANAFUDA_PYTHON"] || "python3";
    const child = spawn(python, ["-m", "hanafuda_referee.cli", "serve"], {
      env: {
        ...inherited,
        HANAFUDA_HOST: "127.0.0.1",
        HANAFUDA_HTTP_PORT: String(httpPort),
        HANAFUDA_GRPC_PORT: String(grpcPort),
        HANAFUDA_CREATE_RATE: "0",
        HANAFUDA_MAX_CLIENT_GAMES: "0",
        HANAFUDA_MAX_CLIENT_BOT_GAMES: "0",
        HANAFUDA_SHUTDOWN_GRACE: "1",
        PYTHONUNBUFFERED: "1",
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const referee = new Referee(child, httpPort, grpcPort);
    // Never left running by a test process that ends without its `after` hook.
    process.once("exit", () => child.kill("SIGKILL"));
    const deadline = Date.now() + 30_000;
    while (true) {
      if (child.exitCode !== null) {
        throw new Error(`the referee exited at start-up (${python}):\n${referee.log}`);
      }
      try {
        const ready = await fetch(`${referee.httpUrl}/readyz`);
        await ready.arrayBuffer();
        if (ready.status === 200) {
          return referee;
        }
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        await referee.stop();
        throw new Error(`the referee did not become ready:\n${referee.log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** SIGTERM, then SIGKILL if it has not exited within 10 s. */
  async stop(): Promise<void> {
    if (this.process.exitCode !== null || this.process.signalCode !== null) {
      return;
    }
    const exited = once(this.process, "exit");
    this.process.kill("SIGTERM");
    const timer = setTimeout(() => this.process.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
