import { describe, expect, it } from "vitest";
import { createClient } from "../../src/api/client.ts";
import { requestToken } from "../../src/api/auth/oauth1-flow.ts";
import { isLoopbackHost, secureBaseUrl } from "../../src/api/secure-origin.ts";
import { UserError } from "../../src/errors.ts";
import { createClock } from "../../src/clock.ts";

describe("HTTPS is required except to loopback", () => {
  it("knows loopback hosts", () => {
    for (const h of ["localhost", "127.0.0.1", "127.1.2.3", "[::1]", "::1", "api.localhost"])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ["example.com", "10.0.0.1", "128.0.0.1", "[::2]", "localhost.example.com", "192.168.1.1"])
      expect(isLoopbackHost(h), h).toBe(false);
  });

  it("accepts HTTPS anywhere and HTTP to loopback", () => {
    expect(secureBaseUrl("https://api.example.com").origin).toBe("https://api.example.com");
    expect(secureBaseUrl("http://127.0.0.1:8787").port).toBe("8787");
    expect(secureBaseUrl("http://[::1]:8787").hostname).toBe("[::1]");
    expect(secureBaseUrl("http://localhost:1").hostname).toBe("localhost");
  });

  it("refuses plain HTTP to a remote host with a message that says what to do", () => {
    expect(() => secureBaseUrl("http://api.example.com", "POSTBOT_BASE_URL")).toThrow(UserError);
    expect(() => secureBaseUrl("http://api.example.com", "POSTBOT_BASE_URL")).toThrow(
      /POSTBOT_BASE_URL http:\/\/api\.example\.com uses plain HTTP.*use https:\/\/api\.example\.com/,
    );
    expect(() => secureBaseUrl("ftp://x", "base URL")).toThrow(/must start with https/);
    expect(() => secureBaseUrl("not a url", "base URL")).toThrow(/is not a URL/);
  });

  it("applies to the client and to every OAuth step, before anything is sent", async () => {
    expect(() => createClient({ baseUrl: "http://10.1.2.3:8080" })).toThrow(/plain HTTP/);
    await expect(
      requestToken("http://api.example.com", {
        consumer: { key: "k", secret: "s" },
        callback: "oob",
        clock: createClock({ frozen: true }),
      }),
    ).rejects.toThrow(/plain HTTP/);
  });
});
