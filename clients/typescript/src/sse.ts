/**
 * A Server-Sent Events reader over a fetch body (`ReadableStream<Uint8Array>`), as the HTML
 * standard's event stream format defines it: lines end in CR, LF or CRLF; `data` lines join with
 * LF; `id` sets the last event id (and persists across events); `event` names the type (default
 * `message`); a line starting with `:` is a comment (the referee's keep-alives); an empty line
 * dispatches the event. Only `fetch` and `ReadableStream` are used, so it runs in browsers and
 * Node alike (where `EventSource` could not send an `Authorization` header).
 */

/** One dispatched event. */
export interface SseEvent {
  /** The event type: `message` unless an `event:` line named another. */
  readonly event: string;
  /** The `data:` lines, joined by LF. */
  readonly data: string;
  /** The last event id as of this event (set by this one's `id:` line or an earlier one's). */
  readonly id: string;
}

/**
 * The events of a stream, in order. `onBytes` is called whenever bytes arrive, comments
 * included (a liveness signal for idle timeouts). When `signal` aborts, the stream is cancelled
 * and the events end; the stream is cancelled too when the iteration stops, early or not.
 */
export async function* readEvents(
  body: ReadableStream<Uint8Array>,
  onBytes: () => void = () => {},
  signal?: AbortSignal,
): AsyncGenerator<SseEvent, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  // Cancelled here rather than through the fetch's own signal: Node 20's fetch, aborted once the
  // whole body has arrived but before it is read, leaves a pending read() unanswered for ever.
  const cancel = () => {
    reader.cancel(signal?.reason).catch(() => {});
  };
  signal?.addEventListener("abort", cancel, { once: true });
  if (signal?.aborted) {
    cancel();
  }
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) {
        // An event not followed by its empty line is incomplete: the standard drops it.
        return;
      }
      onBytes();
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    signal?.removeEventListener("abort", cancel);
    reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** The incremental parser behind {@link readEvents}: text in, complete events out. */
export class SseParser {
  private buffer = "";
  private data: string[] = [];
  private event = "";
  private lastId = "";
  private sawCr = false;

  /** The events completed by this chunk of text. */
  push(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let start = 0;
    for (let index = 0; index < text.length; index++) {
      const char = text.charCodeAt(index);
      if (char === 10 && this.sawCr && index === start && this.buffer === "") {
        // The LF of a CRLF split across chunks (or right after the CR): already a line end.
        this.sawCr = false;
        start = index + 1;
        continue;
      }
      this.sawCr = false;
      if (char === 10 || char === 13) {
        const line = this.buffer + text.slice(start, index);
        this.buffer = "";
        const event = this.line(line);
        if (event !== undefined) {
          events.push(event);
        }
        if (char === 13) {
          if (text.charCodeAt(index + 1) === 10) {
            index++;
          } else {
            this.sawCr = index + 1 === text.length;
          }
        }
        start = index + 1;
      }
    }
    this.buffer += text.slice(start);
    return events;
  }

  private line(line: string): SseEvent | undefined {
    if (line === "") {
      if (this.data.length === 0) {
        this.event = "";
        return undefined;
      }
      const event = { event: this.event || "message", data: this.data.join("\n"), id: this.lastId };
      this.data = [];
      this.event = "";
      return event;
    }
    if (line.startsWith(":")) {
      return undefined;
    }
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) {
      value = value.slice(1);
    }
    if (field === "data") {
      this.data.push(value);
    } else if (field === "event") {
      this.event = value;
    } else if (field === "id" && !value.includes("\0")) {
      this.lastId = value;
    }
    return undefined;
  }
}
