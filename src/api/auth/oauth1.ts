/**
 * OAuth 1.0a HMAC-SHA1 request signing (RFC 5849; wire-facts 4.1), done by the oauth-1.0a
 * package with node:crypto's HMAC. Query parameters and form bodies are signed; JSON bodies
 * never are. The timestamp comes from the injected Clock, so a client talking to a sandbox
 * whose clock was moved signs with the sandbox's time.
 */
import { createHmac, randomBytes } from "node:crypto";
import type OAuth from "oauth-1.0a";
import { lazyPackage } from "../../lazy-package.ts";

const oauth = lazyPackage<typeof OAuth>("oauth-1.0a");
import type { Clock } from "../../clock.ts";
import { percentEncode } from "../query.ts";

/** The app's API key and secret (the "consumer"). */
export interface ConsumerCredentials {
  key: string;
  secret: string;
}

/** A user's OAuth 1.0a access token (or a request token during the 3-legged flow). */
export interface OAuth1Token {
  token: string;
  secret: string;
}

export interface SignOptions {
  consumer: ConsumerCredentials;
  token?: OAuth1Token;
  method: string;
  /** The full request URL, query string included and encoded with {@link percentEncode}. */
  url: string;
  /** Form-encoded body fields (signed); leave out for JSON or empty bodies. */
  form?: Record<string, string>;
  /** Protocol parameters that travel in the header (`oauth_callback`, `oauth_verifier`). */
  oauthParams?: Record<string, string>;
  /** Where the timestamp comes from: the Clock, or the service's time beside it (../service-time.ts). */
  clock: Pick<Clock, "now">;
  /** Fixed nonce, for reproducing a documented signature in a test. */
  nonce?: string;
}

const signers = new Map<string, OAuth>();

function signerFor(consumer: ConsumerCredentials): OAuth {
  const id = `${consumer.key}\0${consumer.secret}`;
  let signer = signers.get(id);
  if (!signer) {
    signer = new (oauth())({
      consumer: { key: consumer.key, secret: consumer.secret },
      signature_method: "HMAC-SHA1",
      hash_function: (base, key) => createHmac("sha1", key).update(base).digest("base64"),
    });
    signers.set(id, signer);
  }
  return signer;
}

/** A nonce of 32 random alphanumerics (any unique ASCII value works; wire-facts 4.1). */
const newNonce = () =>
  randomBytes(24)
    .toString("base64")
    .replace(/[^A-Za-z0-9]/g, "")
    .padEnd(32, "0")
    .slice(0, 32);

/**
 * The `Authorization` header value for one request. Only protocol parameters go in the
 * header: query and form parameters are signed where they are, never repeated.
 */
export function oauth1Header(options: SignOptions): string {
  const signer = signerFor(options.consumer);
  const timestamp = Math.floor(options.clock.now() / 1000);
  const nonce = options.nonce ?? newNonce();
  // The package reads time and nonce from its own methods; an instance owns neither, so
  // each signature gets a shallow object whose methods return this request's values.
  const s = Object.create(signer) as OAuth;
  s.getTimeStamp = () => timestamp;
  s.getNonce = () => nonce;
  const data: Record<string, string> = { ...options.form, ...options.oauthParams };
  const signed = s.authorize(
    { url: options.url, method: options.method.toUpperCase(), data },
    options.token ? { key: options.token.token, secret: options.token.secret } : undefined,
  ) as unknown as Record<string, string>;
  const header: Record<string, string> = {
    oauth_consumer_key: signed.oauth_consumer_key!,
    oauth_nonce: signed.oauth_nonce!,
    oauth_signature: signed.oauth_signature!,
    oauth_signature_method: signed.oauth_signature_method!,
    oauth_timestamp: String(signed.oauth_timestamp),
    oauth_version: signed.oauth_version!,
    ...options.oauthParams,
  };
  if (options.token) header.oauth_token = options.token.token;
  return (
    "OAuth " +
    Object.keys(header)
      .sort()
      .map((k) => `${percentEncode(k)}="${percentEncode(header[k]!)}"`)
      .join(", ")
  );
}
