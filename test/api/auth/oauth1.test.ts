import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { oauth1Header } from "../../../src/api/auth/oauth1.ts";
import { percentEncode } from "../../../src/api/query.ts";
import { createClock } from "../../../src/clock.ts";

const consumer = { key: "xvz1evFS4wEEPTGEFPHBog", secret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw" };
const token = {
  token: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
  secret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE",
};
const nonce = "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg";
const clock = createClock({ frozen: true, start: 1318622958_000 });

const params = (header: string) =>
  Object.fromEntries([...header.slice(6).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], decodeURIComponent(m[2]!)]));

/** Recomputes a signature from the RFC 5849 recipe, independently of the package. */
function expectedSignature(method: string, baseUrl: string, all: Record<string, string>, tokenSecret = "") {
  const paramString = Object.entries(all)
    .map(([k, v]) => [percentEncode(k), percentEncode(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const base = `${method}&${percentEncode(baseUrl)}&${percentEncode(paramString)}`;
  return createHmac("sha1", `${percentEncode(consumer.secret)}&${percentEncode(tokenSecret)}`)
    .update(base)
    .digest("base64");
}

describe("OAuth 1.0a signing", () => {
  it("reproduces the documented example signature (wire-facts 4.1, api.twitter.com/1.1)", () => {
    const header = oauth1Header({
      consumer,
      token,
      method: "POST",
      url: "https://api.twitter.com/1.1/statuses/update.json?include_entities=true",
      form: { status: "Hello Ladies + Gentlemen, a signed OAuth request!" },
      nonce,
      clock,
    });
    expect(params(header).oauth_signature).toBe("hCtSmYh+iHYCEqBWrE7C7hYmtUk=");
    expect(header).toMatch(/^OAuth oauth_consumer_key="xvz1evFS4wEEPTGEFPHBog", oauth_nonce="/);
    // Form parameters are signed, never repeated in the header.
    expect(header).not.toContain("status");
    expect(header).not.toContain("include_entities");
  });

  it("signs query parameters, takes the timestamp from the injected clock, and never signs a JSON body", () => {
    const url = "http://127.0.0.1:9/2/users/1/mentions?max_results=100&since_id=42";
    const header = oauth1Header({ consumer, token, method: "GET", url, clock });
    const p = params(header);
    expect(p.oauth_timestamp).toBe("1318622958");
    const { oauth_signature, ...signed } = p;
    expect(oauth_signature).toBe(
      expectedSignature(
        "GET",
        "http://127.0.0.1:9/2/users/1/mentions",
        { ...signed, max_results: "100", since_id: "42" },
        token.secret,
      ),
    );
  });

  it("puts oauth_callback in the header and signs it; without a token the key ends in '&'", () => {
    const header = oauth1Header({
      consumer,
      method: "POST",
      url: "https://api.example.com/oauth/request_token",
      oauthParams: { oauth_callback: "oob" },
      clock,
    });
    const p = params(header);
    expect(p.oauth_callback).toBe("oob");
    expect(p.oauth_token).toBeUndefined();
    const { oauth_signature, ...signed } = p;
    expect(oauth_signature).toBe(expectedSignature("POST", "https://api.example.com/oauth/request_token", signed));
  });

  it("uses a fresh nonce for every request", () => {
    const a = params(oauth1Header({ consumer, token, method: "GET", url: "https://x.test/2/users/me", clock }));
    const b = params(oauth1Header({ consumer, token, method: "GET", url: "https://x.test/2/users/me", clock }));
    expect(a.oauth_nonce).not.toBe(b.oauth_nonce);
    expect(a.oauth_nonce).toMatch(/^[A-Za-z0-9]{32}$/);
  });
});
