import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { longestFirst } from "./test/helpers/longest-first.ts";

/**
 * In this repository "postbot" is its source, as tsconfig.json's `paths` say for tsc (the
 * package's exports name its compiled copy, build/): the example plugins and the tests import
 * the code they test.
 */
const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const alias = [
  { find: /^postbot$/, replacement: source("./src/index.ts") },
  { find: /^postbot\/testing$/, replacement: source("./src/testing.ts") },
  { find: /^postbot\/sandbox$/, replacement: source("./src/sandbox/index.ts") },
];

/**
 * Tests that start real processes (`bot`, `redis-server`, Chromium, `npm`): they spend most
 * of their time waiting for those processes. They are their own project (`npx vitest run
 * --project unit` runs the rest, in about a minute), run beside the in-process tests.
 */
const PROCESSES = [
  "test/actions/kill9.test.ts",
  "test/actions/ledger-on-redis.test.ts",
  "test/architecture/install-scripts.test.ts",
  "test/browser/**/*.test.ts",
  "test/chaos/**/*.test.ts",
  "test/cli/commands/**/*.test.ts",
  "test/cli/main.test.ts",
  "test/config/schema-file.test.ts",
  "test/config/validate-command.test.ts",
  "test/docs/**/*.test.ts",
  "test/llm/kill9.test.ts",
  "test/observe/cli.test.ts",
  "test/observe/status-page.test.ts",
  "test/observe/status-page-admin.test.ts",
  "test/package/**/*.test.ts",
  "test/plugins/dialogs/kill9-*.test.ts",
  "test/plugins/dialogs/*-on-redis.test.ts",
  "test/redis/**/*.test.ts",
  "test/sandbox/cli.test.ts",
  "test/store/state-lock.test.ts",
];

/**
 * The files that took longest (10-40 s each, `npx vitest run --reporter=json` on main, 27 Nov
 * 2026), longest first: they start first, so that none starts late and ends the run alone
 * (test/helpers/longest-first.ts). A file much longer than the last here belongs in it.
 */
const LONGEST = [
  // Two npm installs from the packed tarball, then its project's bots (test/package/pack.test.ts).
  "test/package/pack.test.ts",
  // A master's failover, then a process's kill -9, on a Redis Cluster (about 50 s alone).
  "test/redis/cluster-failover.test.ts",
  // On one redis-server and on a Redis Cluster (about 30 s each alone, twice that under load).
  "test/redis/fleet-processes.test.ts",
  // Three processes on one redis-server, one killed (about 40 s alone).
  "test/redis/kill9-processes.test.ts",
  "test/cli/commands/start-dry-run.test.ts",
  "test/docs/commands-readme.test.ts",
  "test/chaos/chaos.test.ts",
  "test/cli/commands/say.test.ts",
  "test/plugins-examples/demo-hour.test.ts",
  "test/cli/commands/say-dm-quiz.test.ts",
  "test/redis/stop-redis-down.test.ts",
  "test/docs/commands.test.ts",
  "test/cli/commands/new.test.ts",
  "test/cli/commands/start.test.ts",
  "test/redis/redis-freeze.test.ts",
  "test/redis/stream-handoff-runtime.test.ts",
  "test/redis/state-flag.test.ts",
  "test/plugins/dialogs/kill9-sessions.test.ts",
];

/** `--sequence.shuffle` (or `.files`) asks for vitest's random order, which a sequencer of our own would replace. */
const shuffled = process.argv.some((arg) => arg.startsWith("--sequence.shuffle"));

/**
 * `expect.poll` waits for something a test caused (a page rendered, a queue emptied): its
 * timeout only guards against waiting forever, so it is as generous as a test's own. (Vitest's
 * default, 1 s, failed the status page's 1,000 bots under load, with nothing wrong.)
 */
const shared = {
  // A failing test also lists what its frozen clocks wait for: a retry on one comes only when the test advances it.
  setupFiles: ["test/helpers/frozen-timers.ts"],
  testTimeout: 20_000,
  hookTimeout: 20_000,
  expect: { poll: { timeout: 15_000 } },
  // The files of a project share each worker's modules. Each file imported its module graph
  // afresh (about 0.9 s of CPU a file): the unit project took 211 s of CPU isolated, 66 s not;
  // the process files 198 s and 172 s. So a test cleans up what it made (servers, children,
  // clocks' timers, env), and module state holds nothing one file can see in another's
  // (test/helpers/frozen-timers.ts lists only its own file's clocks; deprecation warnings are
  // told once per runtime, not per process).
  isolate: false,
};

export default defineConfig({
  test: {
    // On 2 cores: the process tests mostly wait for their children, so a third worker runs one
    // of them beside two in-process files. (Vitest wants one worker count for projects that run together.)
    maxWorkers: 3,
    sequence: { sequencer: shuffled ? undefined : longestFirst(LONGEST) },
    // Type tests (*.test-d.ts) are checked by `npm run typecheck` (tsc covers test/), not again here.
    projects: [
      {
        resolve: { alias },
        test: {
          ...shared,
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: ["test/bench/**", "node_modules/**", ...PROCESSES],
        },
      },
      {
        resolve: { alias },
        test: {
          ...shared,
          name: "processes",
          include: PROCESSES,
          // Their children run postbot compiled, as the package does (npm run build), built once here.
          globalSetup: ["test/helpers/build-setup.ts"],
          exclude: ["node_modules/**"],
        },
      },
    ],
  },
});
