/**
 * Reading a streaming endpoint in a test: everything received is collected as text, so a
 * test can wait for a line, check what arrived (keep-alives included), or hang up.
 */
import { vi } from "vitest";

export interface StreamReader {
  status: number;
  headers: Headers;
  /** Everything received so far. */
  text(): string;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** Waits until the received text satisfies `check` (polls; never a timed assertion). */
  until(check: (text: string) => boolean): Promise<void>;
  /** Hangs up, as a client that goes away. */
  close(): void;
}

export async function openStream(url: string, headers: Record<string, string>): Promise<StreamReader> {
  const abort = new AbortController();
  const res = await fetch(url, { headers, signal: abort.signal });
  let received = "";
  const decoder = new TextDecoder();
  const ended = (async () => {
    if (!res.body) return;
    try {
      for await (const chunk of res.body) received += decoder.decode(chunk as Uint8Array, { stream: true });
    } catch {
      // aborted by close()
    }
  })();
  return {
    status: res.status,
    headers: res.headers,
    text: () => received,
    ended,
    until: (check) =>
      vi.waitFor(
        () => {
          if (!check(received)) throw new Error(`stream so far: ${JSON.stringify(received)}`);
        },
        { timeout: 5_000, interval: 5 },
      ),
    close: () => abort.abort(),
  };
}
