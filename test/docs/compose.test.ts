/**
 * compose.yaml, the example deployment of docs/operations.md's "Scaling out", against the code
 * and the documents: Docker cannot run here, so this checks what can go wrong without it. The
 * file is valid YAML; its postbot command is `bot start` with flags the CLI has and values the
 * CLI accepts (the Redis URL names the compose file's Redis service, the status address is the
 * port its health check asks); every variable it sets is one the documents document; the
 * documents' own command line and the number of replicas agree with it. compose.cluster.yaml,
 * the same on a Redis Cluster: its nodes are cluster-enabled and joined by a service the
 * processes wait for, and its `--state` names them as seed nodes.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { buildProgram } from "../../src/cli/main.ts";
import { parseHttpAddress } from "../../src/observe/http-address.ts";
import { parseRedisUrl } from "../../src/redis/connect.ts";
import { docFiles } from "../helpers/doc-blocks.ts";

const text = await readFile("compose.yaml", "utf8");
const operations = await readFile("docs/operations.md", "utf8");
/** Every document, README first. */
const documents = (await Promise.all(docFiles().map((f) => readFile(f, "utf8")))).join("\n");

interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  expose?: string[];
  healthcheck?: { test?: string[] };
  deploy?: { replicas?: number };
  depends_on?: Record<string, { condition?: string }>;
}

const doc = parseDocument(text, { prettyErrors: true });
const compose = doc.toJS() as { services: Record<string, Service>; volumes?: Record<string, unknown> };

/** docs/operations.md's "Scaling out" section. */
const scaling = (() => {
  const start = operations.indexOf("## Scaling out");
  if (start < 0) throw new Error('docs/operations.md has no "## Scaling out" section');
  const end = operations.indexOf("\n## ", start + 1);
  return operations.slice(start, end < 0 ? undefined : end);
})();

/** The `bot start` options the CLI has. */
const startFlags = async () => {
  const start = (await buildProgram()).commands.find((c) => c.name() === "start");
  if (!start) throw new Error("the CLI has no start command");
  return new Set(start.options.map((o) => o.long!));
};

/** `--flag value` pairs of an argument list (a flag followed by another flag, or nothing, has no value). */
function flags(args: readonly string[]): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  args.forEach((a, i) => {
    if (a.startsWith("--")) out.set(a, args[i + 1]?.startsWith("--") ? undefined : args[i + 1]);
  });
  return out;
}

describe("compose.yaml", () => {
  it("is valid YAML with a Redis and several postbot replicas that wait for it", () => {
    expect(doc.errors.map((e) => e.message)).toEqual([]);
    expect(doc.warnings.map((e) => e.message)).toEqual([]);
    const { redis, postbot } = compose.services;
    expect(redis?.image).toMatch(/^redis:\d/);
    expect(postbot?.deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(postbot?.depends_on?.redis?.condition).toBe("service_healthy");
    for (const name of Object.keys(postbot?.depends_on ?? {})) expect(Object.keys(compose.services)).toContain(name);
  });

  it("runs `bot start` with flags the CLI has, its state on the compose file's Redis", async () => {
    const command = compose.services.postbot!.command!;
    expect(command.slice(0, 3)).toEqual(["node", "bin/bot.js", "start"]);
    expect(existsSync(command[1]!)).toBe(true);
    const given = flags(command.slice(3));
    const known = await startFlags();
    for (const flag of given.keys()) expect(known, `bot start ${flag}`).toContain(flag);
    const target = parseRedisUrl(given.get("--state")!, "compose.yaml");
    expect(Object.keys(compose.services)).toContain(target.host);
    const redisArgs = compose.services[target.host]!.command ?? [];
    const redisPort = redisArgs.includes("--port") ? Number(redisArgs[redisArgs.indexOf("--port") + 1]) : 6379;
    expect(target.port).toBe(redisPort);
  });

  it("exposes the status address the CLI parses, and its health check asks that port", () => {
    const postbot = compose.services.postbot!;
    const address = parseHttpAddress(flags(postbot.command!.slice(3)).get("--http")!);
    expect(postbot.expose).toContain(String(address.port));
    expect(postbot.healthcheck?.test?.join(" ")).toContain(`:${address.port}/healthz`);
  });

  it("sets only variables the documents document", () => {
    const documented = new Set([...documents.matchAll(/`(POSTBOT_[A-Z_]+)`/g)].map((m) => m[1]!));
    for (const name of Object.keys(compose.services.postbot!.environment ?? {}))
      expect(documented, name).toContain(name);
  });

  it("agrees with the documents' Scaling out: the same command line, the same number of replicas", async () => {
    expect(scaling).toContain("compose.yaml");
    const line = scaling.split("\n").find((l) => l.startsWith("npx bot start "));
    if (!line) throw new Error('the "Scaling out" section shows no `npx bot start` line');
    const docFlags = flags(line.replace(/#.*$/, "").trim().split(/\s+/).slice(3));
    const known = await startFlags();
    for (const flag of docFlags.keys()) expect(known, `docs/operations.md: bot start ${flag}`).toContain(flag);
    expect(parseRedisUrl(docFlags.get("--state")!, "docs/operations.md").port).toBe(
      parseRedisUrl(flags(compose.services.postbot!.command!.slice(3)).get("--state")!).port,
    );
    const words = ["two", "three", "four", "five"];
    expect(scaling).toContain(`${words[compose.services.postbot!.deploy!.replicas! - 2]} replicas of postbot`);
  });
});

/** compose.cluster.yaml: the same deployment on a Redis Cluster (its YAML anchors merged). */
const clusterDoc = parseDocument(await readFile("compose.cluster.yaml", "utf8"), { prettyErrors: true, merge: true });
const cluster = clusterDoc.toJS() as { services: Record<string, Service> };

describe("compose.cluster.yaml", () => {
  const postbot = cluster.services.postbot!;

  it("is valid YAML: cluster-enabled Redis nodes, joined once by a service every postbot replica waits for", () => {
    expect(clusterDoc.errors.map((e) => e.message)).toEqual([]);
    expect(clusterDoc.warnings.map((e) => e.message)).toEqual([]);
    const nodes = Object.entries(cluster.services).filter(([, s]) => s.command?.includes("--cluster-enabled"));
    expect(nodes.length).toBeGreaterThanOrEqual(6); // three masters, a replica each
    for (const [, node] of nodes) expect(node.image).toMatch(/^redis:\d/);
    const creator = cluster.services["redis-cluster"]!;
    expect(creator.command?.join(" ")).toContain("--cluster create --cluster-replicas 1");
    for (const [name] of nodes) {
      expect(creator.command?.join(" ")).toContain(name);
      expect(creator.depends_on?.[name]?.condition).toBe("service_healthy");
    }
    expect(postbot.depends_on?.["redis-cluster"]?.condition).toBe("service_completed_successfully");
    expect(postbot.deploy?.replicas).toBeGreaterThanOrEqual(2);
  });

  it("runs `bot start` as compose.yaml does, its state on the cluster's nodes", async () => {
    const command = postbot.command!;
    const given = flags(command.slice(3));
    const known = await startFlags();
    for (const flag of given.keys()) expect(known, `bot start ${flag}`).toContain(flag);
    const target = parseRedisUrl(given.get("--state")!, "compose.cluster.yaml");
    expect(target.cluster?.length).toBeGreaterThanOrEqual(3);
    for (const seed of target.cluster!) {
      expect(cluster.services[seed.host]?.command, seed.host).toContain("--cluster-enabled");
      expect(seed.port).toBe(6379);
    }
    const plain = compose.services.postbot!;
    expect(flags(command.slice(3)).get("--http")).toBe(flags(plain.command!.slice(3)).get("--http"));
    expect(postbot.environment).toEqual(plain.environment);
    expect(postbot.healthcheck).toEqual(plain.healthcheck);
  });

  it("is named by the documents' Scaling out", () => {
    expect(scaling).toContain("compose.cluster.yaml");
  });
});
