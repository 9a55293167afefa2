/**
 * The OAuth steps talk to the service outside any client (the `bot auth` commands run them
 * before an account has a token), so each takes either a client's transport or a base URL.
 * A base URL gets a short-lived transport, checked for HTTPS like every other.
 */
import { createTransport, serviceUrl, type HttpResponse, type HttpTransport } from "../http.ts";
import { percentEncode } from "../query.ts";
import { errorFromResponse } from "../responses.ts";
import type { RequestInfo } from "../errors.ts";
import { secureBaseUrl } from "../secure-origin.ts";

/** Where an OAuth step goes: a client's transport, or the service's base URL. */
export type ServiceRef = HttpTransport | string | URL;

const isTransport = (ref: ServiceRef): ref is HttpTransport => typeof ref === "object" && "send" in ref;

/** Runs `fn` with a transport for `ref`, closing it afterwards when it was made here. */
export async function withService<T>(ref: ServiceRef, fn: (transport: HttpTransport) => Promise<T>): Promise<T> {
  if (isTransport(ref)) return fn(ref);
  const transport = createTransport({ baseUrl: ref });
  try {
    return await fn(transport);
  } finally {
    await transport.close();
  }
}

/** The absolute URL of a page of the service (an authorize page), its base URL checked (HTTPS or loopback). */
export function pageUrl(ref: ServiceRef, path: string, query: string): string {
  return isTransport(ref) ? ref.url(path, query) : serviceUrl(secureBaseUrl(ref, "the service base URL"), path, query);
}

/** Throws the typed error of a response that is not a success. */
export function expectSuccess(info: RequestInfo, res: HttpResponse): HttpResponse {
  if (res.status >= 200 && res.status < 300) return res;
  throw errorFromResponse(info, res);
}

/** HTTP Basic credentials as the OAuth 2.0 endpoints read them: each part percent-encoded first (RFC 6749 2.3.1). */
export function basicAuthorization(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${percentEncode(id)}:${percentEncode(secret)}`).toString("base64")}`;
}
