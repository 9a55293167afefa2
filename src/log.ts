/**
 * postbot's logs: pino JSON, pretty only on a terminal, and secrets redacted wherever they
 * appear as a field, so a token can never reach a log file by being logged with its object.
 */
import type { DestinationStream, Logger } from "pino";
import { lazyPackage } from "./lazy-package.ts";

/**
 * pino itself, loaded when the first logger is made or used: `bot validate` makes none (its
 * stand-in bots log to {@link silentLogger}, which nothing writes to unless a plugin's setup
 * does), and pino's import is 20-40 ms of its start-up (measured on the installed package).
 */
const pinoPackage = lazyPackage<typeof import("pino")>("pino");

/** Only a terminal's log is pretty: loaded then. */
const pinoPretty = lazyPackage<typeof import("pino-pretty")>("pino-pretty");

export type { Logger } from "pino";

/** Field names whose values are secrets; redacted at the top level and one level down. */
export const SECRET_FIELDS = [
  "token",
  "token_secret",
  "consumer_secret",
  "access_token",
  "refresh_token",
  "oauth_token_secret",
  "oauth_verifier",
  "client_secret",
  "code_verifier",
  "admin_token",
  "authorization",
  "password",
] as const;

const REDACT = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
  'headers["authorization"]',
  '*.headers["authorization"]',
];

export interface LoggerOptions {
  /** pino level (default `POSTBOT_LOG_LEVEL` or `info`). */
  level?: string;
  /** Human-readable output (default: when stdout is a terminal). */
  pretty?: boolean;
  /** Where to write (default stdout); tests pass a stream to read what was logged. */
  destination?: DestinationStream;
}

/**
 * Creates the process logger. Writes are synchronous and pretty printing runs in-process (no
 * worker thread), so the last lines before an exit are never lost; a bot logs a few lines a
 * second at most, which synchronous writes handle easily.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? process.env.POSTBOT_LOG_LEVEL ?? "info";
  const usePretty = options.pretty ?? (!options.destination && process.stdout.isTTY === true);
  const verbose = level === "debug" || level === "trace";
  const destination = usePretty
    ? pinoPretty()({
        colorize: !options.destination,
        translateTime: "SYS:HH:MM:ss",
        // At info, the message carries the key fields (the action, its target, how it ended):
        // one line each, no JSON tail. At debug the fields follow on the same line, for digging.
        // (pino-pretty ends a line itself only when it is not singleLine or shows the object.)
        singleLine: verbose,
        hideObject: !verbose,
        ignore: "pid,hostname,bot,plugin,component,event",
        messageFormat: prettyLine,
        sync: true,
        ...(options.destination ? { destination: options.destination as unknown as NodeJS.WritableStream } : {}),
      })
    : (options.destination ?? pinoPackage().destination({ dest: 1, sync: true }));
  return pinoPackage().pino({ level, redact: { paths: REDACT, censor: "[redacted]" }, base: undefined }, destination);
}

/**
 * A terminal line: who (the bot, or the sandbox or crowd, and the plugin), then the message,
 * then an error's own message when the line's message does not already say it.
 */
function prettyLine(log: Record<string, unknown>, messageKey: string): string {
  const who = [log.bot ?? log.component, log.plugin].filter((v) => typeof v === "string" && v !== "").join(" ");
  const msg = String(log[messageKey] ?? "");
  const err = (log.err as { message?: unknown } | undefined)?.message;
  const cause = typeof err === "string" && err !== "" && !msg.includes(err) ? ` (${err})` : "";
  return `${who ? `${who}: ` : ""}${msg}${cause}`;
}

/**
 * A logger that drops everything, for library use where the caller gave none. It stands for
 * a pino logger made on its first use (a property read, a call, a level set): its methods are
 * that logger's, bound to it, so `child()` gives plain pino children.
 */
export const silentLogger: Logger = onFirstUse(() => pinoPackage().pino({ level: "silent" }));

/** An object that is `make()`'s, made when first touched. */
function onFirstUse<T extends object>(make: () => T): T {
  let made: T | undefined;
  const real = () => (made ??= make());
  return new Proxy({} as T, {
    get(_, key) {
      const value: unknown = Reflect.get(real(), key);
      return typeof value === "function" ? value.bind(real()) : value;
    },
    set: (_, key, value) => Reflect.set(real(), key, value),
    has: (_, key) => Reflect.has(real(), key),
  });
}
