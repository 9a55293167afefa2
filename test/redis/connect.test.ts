import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UserError } from "../../src/errors.ts";
import { connectRedis, isRedisUrl, parseRedisUrl, redactRedisUrl, type SingleRedis } from "../../src/redis/connect.ts";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.ts";

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(() => server?.close());

describe("redis:// URLs", () => {
  it("parses host, port and database, with defaults", () => {
    expect(parseRedisUrl("redis://10.0.0.5:6380/3")).toMatchObject({
      host: "10.0.0.5",
      port: 6380,
      db: 3,
      display: "redis://10.0.0.5:6380/3",
    });
    expect(parseRedisUrl("redis://cache")).toMatchObject({ host: "cache", port: 6379, db: 0 });
    expect(parseRedisUrl("redis://:s3cret@cache:7000/1")).toMatchObject({
      password: "s3cret",
      display: "redis://cache:7000/1",
    });
    expect(isRedisUrl("redis://x")).toBe(true);
    expect(isRedisUrl(".postbot")).toBe(false);
  });

  it("refuses bad URLs naming the setting and never the password", () => {
    const bad = (url: string, source?: string) => {
      try {
        parseRedisUrl(url, source);
      } catch (err) {
        expect(err).toBeInstanceOf(UserError);
        return (err as Error).message;
      }
      throw new Error(`${url} was accepted`);
    };
    expect(bad("redis://:hunter2@cache:6379/x", "POSTBOT_STATE")).toMatch(
      /^POSTBOT_STATE: "redis:\/\/cache:6379\/x": the database "\/x" must be a number/,
    );
    expect(bad("redis://:hunter2@cache:6379/x")).not.toContain("hunter2");
    expect(bad("http://cache:6379")).toMatch(/is not a redis:\/\/ URL; give redis:\/\/HOST:PORT\/DB/);
    expect(bad("rediss://cache")).toMatch(/TLS/);
    expect(bad("redis://cache:6379/0?timeout=5")).toMatch(/options after/);
    expect(redactRedisUrl("redis://user:pw@h:1/0")).toBe("redis://h:1/0");
  });
});

describe("redis+cluster:// URLs (a Redis Cluster's seed nodes)", () => {
  it("parse the nodes, a trailing slash and a password; never show the password", () => {
    const target = parseRedisUrl("redis+cluster://:pa%40ss@10.0.0.1:7000,10.0.0.2:7001,[::1]:7002/", "POSTBOT_STATE");
    expect(target).toMatchObject({
      cluster: [
        { host: "10.0.0.1", port: 7000 },
        { host: "10.0.0.2", port: 7001 },
        { host: "::1", port: 7002 },
      ],
      db: 0,
      password: "pa@ss",
      display: "redis+cluster://10.0.0.1:7000,10.0.0.2:7001,[::1]:7002",
    });
    expect(parseRedisUrl("redis+cluster://cache-1:6379").cluster).toEqual([{ host: "cache-1", port: 6379 }]);
    expect(isRedisUrl("redis+cluster://a:1,b:2")).toBe(true);
  });

  it("refuse a node without its port, a database or options, saying what to give", () => {
    const bad = (url: string) => {
      try {
        parseRedisUrl(url, "POSTBOT_STATE");
      } catch (err) {
        expect(err).toBeInstanceOf(UserError);
        return (err as Error).message;
      }
      throw new Error(`${url} was accepted`);
    };
    const give = "give redis+cluster://HOST:PORT,HOST:PORT,HOST:PORT";
    expect(bad("redis+cluster://:hunter2@a:1,b")).toMatch(
      /^POSTBOT_STATE: "redis\+cluster:\/\/a:1,b" has "b" where a node's HOST:PORT goes \(every node needs its port\); give/,
    );
    expect(bad("redis+cluster://:hunter2@a:1,b")).not.toContain("hunter2");
    expect(bad("redis+cluster://a:1,b:2/3")).toMatch(/a Redis Cluster has only database 0/);
    expect(bad("redis+cluster://a:1?db=2")).toContain(give);
    expect(bad("redis+cluster://")).toMatch(/names no node/);
    expect(bad("redis+cluster://a:70000")).toMatch(/not between 1 and 65535/);
  });
});

describe("connectRedis", () => {
  it("connects and answers", async () => {
    const redis = await connectRedis(server.url);
    try {
      expect(await redis.ping()).toBe("PONG");
    } finally {
      redis.disconnect();
    }
  });

  it("says what to do when nothing listens there", async () => {
    const other = await startRedisServer();
    const url = other.url.replace("redis://", "redis://:topsecret@");
    await other.close();
    const err = await connectRedis(url, { source: "POSTBOT_STATE" }).then(
      () => new Error("connected"),
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toBe(
      `cannot reach Redis at redis://127.0.0.1:${other.port}/0 (POSTBOT_STATE): nothing listens there. Start Redis there (e.g. \`redis-server --port ${other.port}\`), or fix the URL; without --state, postbot keeps its state in .postbot/`,
    );
  });

  it("says so when the database does not exist", async () => {
    const err = await connectRedis(server.url.replace(/\/0$/, "/99")).then(
      () => new Error("connected"),
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toMatch(/database 99 does not exist there/);
  });
});

describe("unix socket URLs (a Redis on this machine)", () => {
  it("parse the socket's path, database and password; never show the password", () => {
    expect(parseRedisUrl("unix:///run/redis/redis.sock")).toMatchObject({
      path: "/run/redis/redis.sock",
      db: 0,
      display: "unix:///run/redis/redis.sock?db=0",
    });
    expect(parseRedisUrl("redis+unix:///tmp/r.sock?db=3&password=s3cret")).toMatchObject({
      path: "/tmp/r.sock",
      db: 3,
      password: "s3cret",
      display: "unix:///tmp/r.sock?db=3",
    });
    expect(isRedisUrl("unix:///tmp/r.sock")).toBe(true);
    expect(isRedisUrl("redis+unix:///tmp/r.sock")).toBe(true);
    expect(redactRedisUrl("unix:///tmp/r.sock?password=s3cret&db=1")).toBe("unix:///tmp/r.sock?db=1");
    expect(redactRedisUrl("unix:///tmp/r.sock?db=1&password=s3cret")).toBe("unix:///tmp/r.sock?db=1");
    expect(redactRedisUrl("redis+unix://u:pw@/tmp/r.sock")).toBe("redis+unix:///tmp/r.sock");
  });

  it("refuse a host, a missing path, a bad database or an unknown option, saying what to give", () => {
    const bad = (url: string) => {
      try {
        parseRedisUrl(url, "POSTBOT_STATE");
      } catch (err) {
        expect(err).toBeInstanceOf(UserError);
        return (err as Error).message;
      }
      throw new Error(`${url} was accepted`);
    };
    expect(bad("unix://tmp/r.sock")).toMatch(
      /^POSTBOT_STATE: "unix:\/\/tmp\/r.sock" names a host \("tmp"\); a unix socket URL names a path after three slashes: give unix:\/\/\/PATH\/TO\/redis.sock\?db=DB/,
    );
    expect(bad("unix:///")).toMatch(/names no socket path/);
    expect(bad("unix:///tmp/r.sock?db=one&password=hunter2")).toMatch(/the database "db=one" must be a number/);
    expect(bad("unix:///tmp/r.sock?db=one&password=hunter2")).not.toContain("hunter2");
    expect(bad("unix:///tmp/r.sock?timeout=5")).toMatch(
      /the option "timeout" is not understood \(only db and password are\)/,
    );
  });

  it("connect to the same Redis as its TCP port", async () => {
    const tcp = await connectRedis(server.url);
    const unix = await connectRedis(server.socketUrl);
    try {
      await tcp.set("postbot:via", "tcp");
      expect(await unix.get("postbot:via")).toBe("tcp");
      expect((unix as SingleRedis).options.path).toBe(parseRedisUrl(server.socketUrl).path);
    } finally {
      tcp.disconnect();
      unix.disconnect();
    }
  });
});
