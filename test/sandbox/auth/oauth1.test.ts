import { describe, expect, it } from "vitest";
import {
  baseStringUri,
  hmacSha1Signature,
  normalizeParameters,
  parseOAuthHeader,
  percentEncode,
  signatureBaseString,
  verifySignature,
} from "../../../src/sandbox/auth/oauth1.ts";

// The documented worked example (wire-facts 4.1, Twitter's "Creating a signature" page).
const EX = {
  consumerSecret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw",
  tokenSecret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE",
  params: [
    ["status", "Hello Ladies + Gentlemen, a signed OAuth request!"],
    ["include_entities", "true"],
    ["oauth_consumer_key", "xvz1evFS4wEEPTGEFPHBog"],
    ["oauth_nonce", "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg"],
    ["oauth_signature_method", "HMAC-SHA1"],
    ["oauth_timestamp", "1318622958"],
    ["oauth_token", "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb"],
    ["oauth_version", "1.0"],
  ] as Array<[string, string]>,
};

describe("OAuth 1.0a signatures (RFC 5849)", () => {
  it("percent-encodes as RFC 3986 wants: a space is %20, reserved marks are encoded", () => {
    expect(percentEncode("Hello Ladies + Gentlemen, a signed OAuth request!")).toBe(
      "Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21",
    );
    expect(percentEncode("*'()~-._")).toBe("%2A%27%28%29~-._");
    expect(percentEncode("☃")).toBe("%E2%98%83");
  });

  it("builds the documented parameter string", () => {
    expect(normalizeParameters(EX.params)).toBe(
      "include_entities=true&oauth_consumer_key=xvz1evFS4wEEPTGEFPHBog&oauth_nonce=kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg&oauth_signature_method=HMAC-SHA1&oauth_timestamp=1318622958&oauth_token=370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb&oauth_version=1.0&status=Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21",
    );
  });

  it("computes the documented signature for the api.twitter.com/1.1 base URL", () => {
    const base = signatureBaseString("post", "https://api.twitter.com/1.1/statuses/update.json", EX.params);
    expect(
      base.startsWith("POST&https%3A%2F%2Fapi.twitter.com%2F1.1%2Fstatuses%2Fupdate.json&include_entities%3Dtrue"),
    ).toBe(true);
    expect(hmacSha1Signature(base, EX.consumerSecret, EX.tokenSecret)).toBe("hCtSmYh+iHYCEqBWrE7C7hYmtUk=");
    // ...and the value the original page printed, for its /1/ URL.
    const v1 = signatureBaseString("POST", "https://api.twitter.com/1/statuses/update.json", EX.params);
    expect(hmacSha1Signature(v1, EX.consumerSecret, EX.tokenSecret)).toBe("tnnArxj06cWHq44gCs1OSKk/jLY=");
  });

  it("verifies the documented request and refuses any change to it", () => {
    const req = {
      method: "POST",
      uri: "https://api.twitter.com/1.1/statuses/update.json",
      params: EX.params,
      signature: "hCtSmYh+iHYCEqBWrE7C7hYmtUk=",
    };
    expect(verifySignature(req, EX.consumerSecret, EX.tokenSecret)).toBe(true);
    expect(verifySignature({ ...req, method: "GET" }, EX.consumerSecret, EX.tokenSecret)).toBe(false);
    expect(verifySignature(req, EX.consumerSecret, "wrong")).toBe(false);
    expect(
      verifySignature(
        { ...req, params: [...EX.params.slice(1), ["status", "Hello Ladies"]] },
        EX.consumerSecret,
        EX.tokenSecret,
      ),
    ).toBe(false);
    expect(verifySignature({ ...req, signature: "" }, EX.consumerSecret, EX.tokenSecret)).toBe(false);
  });

  it("sorts duplicate names by value and leaves oauth_signature out", () => {
    expect(
      normalizeParameters([
        ["b", "2"],
        ["a", "z"],
        ["a", "y"],
        ["oauth_signature", "x"],
      ]),
    ).toBe("a=y&a=z&b=2");
  });

  it("normalizes the base string URI: lowercase scheme and host, no default port", () => {
    expect(baseStringUri("HTTP", "Example.COM:80", "/r%20v/X")).toBe("http://example.com/r%20v/X");
    expect(baseStringUri("https", "example.com:443", "/")).toBe("https://example.com/");
    expect(baseStringUri("http", "127.0.0.1:8787", "/2/posts")).toBe("http://127.0.0.1:8787/2/posts");
  });

  it("parses an Authorization header, percent-decoding keys and values", () => {
    const h = parseOAuthHeader(
      'OAuth realm="x", oauth_consumer_key="abc", oauth_signature="tnnArxj06cWHq44gCs1OSKk%2FjLY%3D", oauth_callback="http%3A%2F%2Fa.b%2Fc"',
    );
    expect(h?.realm).toBe("x");
    expect(h?.params.get("oauth_signature")).toBe("tnnArxj06cWHq44gCs1OSKk/jLY=");
    expect(h?.params.get("oauth_callback")).toBe("http://a.b/c");
    expect(parseOAuthHeader("Bearer abc")).toBeUndefined();
    expect(parseOAuthHeader('OAuth a="1", a="2"')).toBeUndefined();
    expect(parseOAuthHeader('OAuth a="%zz"')).toBeUndefined();
    expect(parseOAuthHeader("OAuth garbage")).toBeUndefined();
    expect(parseOAuthHeader('OAuth a="1" b="2"')).toBeUndefined();
    expect(parseOAuthHeader('OAuthx a="1"')).toBeUndefined();
    // Commas without spaces, spaces around "=", any case of the scheme.
    const tight = parseOAuthHeader('oauth a="1",b = "x%20y" ,  c="%2C"');
    expect([...tight!.params]).toEqual([
      ["a", "1"],
      ["b", "x y"],
      ["c", ","],
    ]);
    expect(parseOAuthHeader("OAuth")?.params.size).toBe(0);
  });
});
