/**
 * The terminal side of the sign-in flows: print a line, ask a question. Injected, so the
 * flows run unchanged in tests (which answer the prompts themselves) and in `bot auth`.
 */
import { createInterface } from "node:readline/promises";
import type { Readable, Writable } from "node:stream";
import { UserError } from "../errors.ts";

export interface Terminal {
  print(line: string): void;
  /** Asks and returns the trimmed answer; refuses an empty one. */
  ask(question: string): Promise<string>;
}

/** A terminal over streams (stdin/stdout by default). End of input is a clear error, not a hang. */
export function streamTerminal(input: Readable = process.stdin, output: Writable = process.stdout): Terminal {
  return {
    print: (line) => void output.write(`${line}\n`),
    async ask(question) {
      const rl = createInterface({ input, output, terminal: false });
      try {
        const answer = (
          await new Promise<string>((resolve, reject) => {
            rl.once("close", () => reject(new UserError("no answer: the input ended before one was typed")));
            rl.question(question).then(resolve, reject);
          })
        ).trim();
        if (!answer) throw new UserError("no answer given; run the command again and type it");
        return answer;
      } finally {
        rl.close();
      }
    },
  };
}
