/**
 * How large a bot file may be: {@link BOT_FILE_MAX_BYTES}, checked before the file is read
 * whole or parsed. A bot file is a page or two of YAML (the longest example is a few KB); a
 * file of tens of megabytes is a mistake (a log pasted in, a generated file), and parsing one
 * took seconds of the one thread every bot shares and gigabytes of memory: at start, and
 * worse, on the live path, where each save of it held up every other bot's answers. So it is
 * refused with a problem naming the file and the limit, having read no more than the limit.
 * The admin API refuses a larger body the same (src/observe/admin-api.ts).
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { BotFileProblem } from "./problem.ts";

/** The largest bot file (or template, or bot sent to the admin API) postbot reads: 256 KB. */
export const BOT_FILE_MAX_BYTES = 256 * 1024;

/** The problem of a file over the limit (`bytes`: its size, as far as it is known). */
export function oversizedProblem(file: string, bytes: number): BotFileProblem {
  return {
    file,
    message: `is ${formatSize(bytes)}, more than the ${BOT_FILE_MAX_BYTES / 1024} KB a bot file may have; it was not read. A bot file is a page or two of settings: keep long texts and data in a plugin's own files`,
  };
}

/** The problem of a text over the limit, or undefined: for a bot file's text that came another way (the admin API, the state). */
export function textSizeProblem(file: string, text: string): BotFileProblem | undefined {
  // A UTF-8 character is at most 4 bytes (and a UTF-16 unit at most 3): most texts need no count.
  if (text.length * 3 <= BOT_FILE_MAX_BYTES) return undefined;
  const bytes = Buffer.byteLength(text, "utf8");
  return bytes > BOT_FILE_MAX_BYTES ? oversizedProblem(file, bytes) : undefined;
}

/**
 * Reads a bot file (`path`; `file` is how problems name it), refusing one over
 * {@link BOT_FILE_MAX_BYTES} before reading it: no more than the limit is ever read, even
 * when the file grows meanwhile.
 *
 * @throws the file system's error when it cannot be opened or read (the caller words it).
 */
export function readBotFile(path: string, file: string): { text: string } | { problem: BotFileProblem } {
  const fd = openSync(path, "r");
  try {
    const { size } = fstatSync(fd);
    if (size > BOT_FILE_MAX_BYTES) return { problem: oversizedProblem(file, size) };
    // One byte more than its size: a file that grew since fstat is read again, to the limit and one byte.
    let bytes = readUpTo(fd, size + 1);
    if (bytes.length > size) bytes = readUpTo(fd, BOT_FILE_MAX_BYTES + 1);
    if (bytes.length > BOT_FILE_MAX_BYTES) return { problem: oversizedProblem(file, bytes.length) };
    return { text: bytes.toString("utf8") };
  } finally {
    closeSync(fd);
  }
}

/** The file's first `limit` bytes (fewer when it is shorter), from its start. */
function readUpTo(fd: number, limit: number): Buffer {
  const buffer = Buffer.allocUnsafe(limit);
  let read = 0;
  while (read < limit) {
    const n = readSync(fd, buffer, read, limit - read, read);
    if (n === 0) break;
    read += n;
  }
  return buffer.subarray(0, read);
}

function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${Math.ceil(bytes / 1024)} KB`;
}
