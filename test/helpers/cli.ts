/** Runs `bot ARGS` as a user would, with only the environment given (no inherited secrets). */
import { execFile } from "node:child_process";

export interface BotRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runBot(args: string[], env: Record<string, string> = {}): Promise<BotRun> {
  return new Promise((done) => {
    execFile(process.execPath, ["bin/bot.js", ...args], { env: { PATH: process.env.PATH ?? "", ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
    });
  });
}
