/**
 * `npm run chaos`: the fault campaign against this checkout, on loopback only: the kill -9
 * loop through 1,000 mentions, the stream's faults, Redis frozen, its stream holder killed
 * and Redis restarted, journals cut, the state's disk filled up, the bots' clock off, a process
 * hung past its lease with its answers at a slow service, a dialog edited under its users. Prints one row per scenario (answered, twice,
 * never, liked, late) and a verdict, so a change can be checked the same way. About 8 minutes
 * by default (and never more: past `--minutes` it stops what runs and prints what it has);
 * `--long` for a longer campaign, `--tiny` for the smallest (what the test runs). Every
 * process it starts is stopped when it ends, fails or is interrupted (Ctrl-C).
 *
 *   npm run chaos                      # about 8 minutes
 *   npm run chaos -- --long --minutes 20
 *   npm run chaos -- --only kill,journal --logs /tmp/chaos   # each process's output kept there
 *
 * Exit 0 when nothing was lost, doubled or replayed without a word; 1 otherwise; 130 when
 * interrupted.
 */
import { parseArgs } from "node:util";
import {
  clockSkew,
  dialogEdit,
  fullDisk,
  hungProcess,
  journalCuts,
  killLoop,
  redisTrouble,
  SCALES,
  streamFaults,
  type ChaosScale,
} from "./scenarios.ts";
import { type ChaosRow, closeAll, keepLogs, LATE_MS } from "./world.ts";

const SCENARIOS = {
  kill: killLoop,
  stream: streamFaults,
  redis: redisTrouble,
  journal: journalCuts,
  disk: fullDisk,
  skew: clockSkew,
  hung: hungProcess,
  dialog: dialogEdit,
} as const satisfies Record<string, (scale: ChaosScale, say: (line: string) => void) => Promise<ChaosRow>>;

const HELP = `npm run chaos [-- --tiny | --long] [--minutes N] [--only ${Object.keys(SCENARIOS).join(",")}] [--logs DIR]`;

/** The table, as markdown. */
function formatRows(rows: readonly ChaosRow[]): string {
  const head = [
    "scenario",
    "faults",
    "mentions + DMs",
    "answered",
    "twice",
    "never",
    "matching posts",
    "liked",
    "not liked",
    `late (> ${LATE_MS / 1000} s)`,
    "slowest",
  ];
  const lines = rows.map((r) => [
    r.scenario,
    r.faults,
    String(r.mentions),
    String(r.answered),
    String(r.twice),
    String(r.never),
    String(r.matching),
    String(r.liked),
    String(r.notLiked),
    String(r.late),
    `${(r.slowestMs / 1000).toFixed(1)} s`,
  ]);
  const row = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [row(head), row(head.map(() => "---")), ...lines.map(row)].join("\n");
}

/** Whether a row shows harm: a mention lost or answered twice, a post not liked, a cut journal replayed without a word, a stop not clean. */
const harmed = (r: ChaosRow) =>
  r.twice > 0 ||
  r.never > 0 ||
  r.notLiked > 0 ||
  /[1-9]\d* started without a word/.test(r.faults) ||
  /NOT (CLEAN|said)|PLACEHOLDERS SENT/.test(r.faults);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      tiny: { type: "boolean", default: false },
      long: { type: "boolean", default: false },
      minutes: { type: "string" },
      only: { type: "string" },
      logs: { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const scale = SCALES[values.tiny ? "tiny" : values.long ? "long" : "default"]!;
  const minutes = Number(values.minutes ?? (values.long ? 30 : 8));
  if (!(minutes > 0)) throw new Error(`--minutes ${values.minutes}: give a number of minutes; ${HELP}`);
  const only = values.only?.split(",").map((s) => s.trim()) ?? Object.keys(SCENARIOS);
  const unknown = only.filter((s) => !(s in SCENARIOS));
  if (unknown.length > 0) throw new Error(`--only ${unknown.join(",")}: no such scenario; ${HELP}`);

  if (values.logs) keepLogs(values.logs);
  const say = (line: string) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${line}`);
  const rows: ChaosRow[] = [];
  const deadline = Date.now() + minutes * 60_000;
  say(`${scale.name} campaign, at most ${minutes} min: ${only.join(", ")}`);
  let cut = false;
  for (const name of only) {
    const left = deadline - Date.now();
    if (left <= 0) {
      cut = true;
      break;
    }
    say(`${name}: starting`);
    const run = SCENARIOS[name as keyof typeof SCENARIOS]({ ...scale, drainMs: Math.min(scale.drainMs, left) }, say);
    const row = await Promise.race([run, new Promise<undefined>((r) => setTimeout(() => r(undefined), left).unref())]);
    await closeAll();
    if (!row) {
      say(`${name}: cut short at the campaign's ${minutes} min`);
      cut = true;
      break;
    }
    rows.push(row);
    say(`${name}: ${row.answered}/${row.mentions} answered (${row.twice} twice), ${row.liked}/${row.matching} liked`);
  }
  console.log(`\n${formatRows(rows)}\n`);
  const bad = rows.filter(harmed);
  console.log(
    bad.length === 0
      ? `verdict: nothing lost, doubled or replayed without a word${cut ? " (the campaign was cut short: not every scenario ran)" : ""}`
      : `verdict: harm in ${bad.map((r) => r.scenario).join(", ")}`,
  );
  return bad.length === 0 ? 0 : 1;
}

let stopping = false;
const interrupt = (signal: string) => {
  if (stopping) process.exit(130);
  stopping = true;
  console.log(`\n${signal}: stopping everything the campaign started`);
  void closeAll().finally(() => process.exit(130));
};
process.on("SIGINT", () => interrupt("SIGINT"));
process.on("SIGTERM", () => interrupt("SIGTERM"));

main()
  .then(
    (code) => code,
    (err: unknown) => {
      console.error(`chaos: ${(err as Error)?.message ?? String(err)}`);
      return 2;
    },
  )
  .then(async (code) => {
    await closeAll();
    process.exit(code);
  });
