/** A logger whose JSON lines a test can read: `const { lines, logger } = captureLogs();`. */
import { Writable } from "node:stream";
import { createLogger, type Logger } from "../../src/log.ts";

export function captureLogs(level = "debug"): { lines: Array<Record<string, unknown>>; logger: Logger } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger({ destination, level }) };
}
