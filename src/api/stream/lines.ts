/**
 * Stream framing (wire-facts 2.8): each message is one line ended by `\r\n`, and an empty
 * line is a keep-alive. Chunks from the socket split lines (and UTF-8 characters) anywhere,
 * so bytes are decoded incrementally and only complete lines are handed on.
 */
export class LineSplitter {
  private readonly decoder = new TextDecoder("utf-8");
  private buffer = "";

  /** Adds a chunk; returns the lines it completed, without their `\r\n`. */
  push(chunk: Uint8Array | string): string[] {
    this.buffer += typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    const parts = this.buffer.split("\r\n");
    this.buffer = parts.pop()!;
    return parts;
  }

  /** The bytes of an unfinished line (a line cut in half when the connection ended), and forgets them. */
  takeRest(): string {
    const rest = this.buffer + this.decoder.decode();
    this.buffer = "";
    return rest;
  }
}
