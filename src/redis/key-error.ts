/**
 * Redis's own errors about a key, said with the key and what to do. Redis answers a command
 * on a key that holds another kind of value (a string where postbot keeps a hash) with a bare
 * `WRONGTYPE Operation against a key holding the wrong kind of value`, naming neither the key
 * nor a way out; a key postbot uses is of the wrong type when something else wrote it (another
 * program sharing the database, a hand-made test) or it was damaged. ioredis tells which
 * command failed (`error.command`), so the key is known, or given by the caller (a MULTI's
 * commands are not named). The same for its other refusals of a write: out of memory (OOM), a
 * read-only replica (READONLY), a user without the right (NOPERM).
 */
import { UserError } from "../errors.ts";

/** What ioredis attaches to a command's error. */
interface CommandError {
  message?: string;
  command?: { name?: string; args?: unknown[] };
  /** An aborted MULTI's (EXECABORT): the refusals of its commands as they were queued. */
  previousErrors?: CommandError[];
}

/** The keys a failed command was about: its first argument, or a script's KEYS. */
function keysOf(error: CommandError): string[] {
  const { name, args } = error.command ?? {};
  if (!args || args.length === 0) return [];
  if (name === "eval" || name === "evalsha") {
    const n = Number(args[1]);
    return Number.isInteger(n) && n > 0 ? args.slice(2, 2 + n).map(String) : [];
  }
  return [String(args[0])];
}

/**
 * `error` as a {@link UserError} naming the key and what to do, when Redis refused a command
 * for the key's type (WRONGTYPE); otherwise `error` itself. `key`: the key when the command is
 * not named (a MULTI), or more precisely than its arguments say.
 */
export function keyError(error: unknown, key?: string): unknown {
  const e = error as CommandError;
  if (typeof e?.message !== "string") return error;
  // A MULTI whose command Redis refused as it was queued (OOM): EXEC aborts, with the refusal in it.
  if (e.message.startsWith("EXECABORT") && e.previousErrors?.[0]) {
    const refused = keyError(Object.assign(e.previousErrors[0], { command: { name: "exec" } }), key);
    return refused === e.previousErrors[0] ? error : refused;
  }
  const code = e.message.split(" ", 1)[0]!;
  const why = WHY[code];
  if (!why) return error;
  const keys = key ? [key] : keysOf(e);
  const which =
    keys.length === 0
      ? "a key postbot uses"
      : keys.length === 1
        ? `the key ${keys[0]}`
        : `one of the keys ${keys.join(", ")}`;
  return new UserError(
    `Redis refused ${e.command?.name?.toUpperCase() ?? "a command"} on ${which}: ${why(keys[0] ?? "KEY")}`,
    {
      cause: error,
    },
  );
}

/** What each of Redis's refusals means for postbot, and what to do (given the key). */
const WHY: Record<string, (key: string) => string> = {
  WRONGTYPE: (key) =>
    `it holds another kind of value than postbot keeps there (WRONGTYPE). Something other than postbot wrote it, or it was damaged: look at it (redis-cli TYPE ${key}) and, if it is not postbot's, remove it (redis-cli DEL ${key}; a bot's state removed is refused at the next start until restored, or started afresh with bot start --afresh NAME), or give postbot a Redis database of its own (redis://HOST:PORT/N)`,
  OOM: () =>
    "Redis is out of memory (OOM: its maxmemory is reached and it evicts nothing). Nothing of this write was kept; it is tried again at the next save. Raise maxmemory (redis-cli CONFIG SET maxmemory ...) or free memory in that Redis",
  READONLY: () =>
    "this Redis is a read-only replica (READONLY). Give postbot the primary's address (--state redis://PRIMARY:PORT/N)",
  NOPERM: (key) =>
    `the Redis user postbot signs in as may not use this key or command (NOPERM). Allow it the keys postbot:* and the commands of hashes and scripts (redis-cli ACL SETUSER ...; see ACL LOG for ${key})`,
};
