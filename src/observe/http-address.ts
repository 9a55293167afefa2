/**
 * `bot start --http [HOST:]PORT`: where the metrics, health and status page listen. The
 * default host is loopback, since the page shows what the bots do and the server has no
 * authentication; another host must be written out, and the start warns about it.
 */
import { isIP } from "node:net";
import { UserError } from "../errors.ts";

export interface HttpAddress {
  host: string;
  port: number;
}

/** The address when `--http` is given without a value. */
export const DEFAULT_HTTP_ADDRESS: HttpAddress = { host: "127.0.0.1", port: 9464 };

const HINT = "write HOST:PORT (127.0.0.1:9464), [::1]:9464, or a port alone (9464, on 127.0.0.1)";

/** Parses the flag's value; a bad one is a {@link UserError} (exit 2) saying what to write. */
export function parseHttpAddress(value: string): HttpAddress {
  const text = value.trim();
  const bracketed = /^\[([^\]]+)\]:(\d+)$/.exec(text);
  const plain = /^([^:]*):(\d+)$/.exec(text);
  const portOnly = /^\d+$/.test(text) ? text : undefined;
  const host =
    bracketed?.[1] ??
    (plain ? plain[1] || DEFAULT_HTTP_ADDRESS.host : portOnly !== undefined ? DEFAULT_HTTP_ADDRESS.host : undefined);
  const portText = bracketed?.[2] ?? plain?.[2] ?? portOnly;
  if (host === undefined || portText === undefined)
    throw new UserError(`--http "${value}": not an address; ${HINT}`, { exitCode: 2 });
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UserError(`--http "${value}": ${portText} is not a port (0 to 65535); ${HINT}`, { exitCode: 2 });
  if (bracketed && isIP(host) !== 6)
    throw new UserError(`--http "${value}": ${host} is not an IPv6 address; ${HINT}`, { exitCode: 2 });
  if (!bracketed && host !== "localhost" && isIP(host) === 0 && !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i.test(host)) {
    throw new UserError(`--http "${value}": ${host} is not a host name or IP address; ${HINT}`, { exitCode: 2 });
  }
  return { host, port };
}

/** Whether a host is this machine only (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || (isIP(host) === 4 && host.startsWith("127."));
}

/** How a URL writes the address (brackets around IPv6). */
export function formatHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}
