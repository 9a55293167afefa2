/**
 * The layers of `src/` hold (test/architecture/layers.ts says which they are): no import runs
 * upwards, `sandbox` stays apart, and no two files import each other, however indirectly.
 */
import { describe, expect, it } from "vitest";
import { checkLayers, formatProblem, layerOf, readSources } from "./layers.ts";

describe("the layers of src/", () => {
  it("no file imports a higher layer, and no import makes a cycle", () => {
    const problems = checkLayers(readSources()).map(formatProblem);
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("every folder of src/ is in a layer", () => {
    const files = readSources();
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((f) => layerOf(f.path) === undefined).map((f) => f.path)).toEqual([]);
  });
});

describe("the check itself", () => {
  it("names an upward import, the file and the rule it breaks", () => {
    const problems = checkLayers([
      { path: "store/store.ts", imports: ["../actions/action.ts", "node:fs", "./namespaces.ts"] },
      { path: "store/namespaces.ts", imports: ["../clock.ts"] },
      { path: "actions/action.ts", imports: ["../store/store.ts"] },
      { path: "clock.ts", imports: [] },
    ]).map(formatProblem);
    expect(problems).toContain(
      'src/store/store.ts imports "../actions/action.ts": store may not import actions: actions is a higher layer (imports run downwards only)',
    );
    // ... and the cycle the same import closes.
    expect(problems).toContain(
      'src/actions/action.ts imports "../store/store.ts": a cycle: actions/action.ts → store/store.ts → actions/action.ts',
    );
    expect(problems).toHaveLength(2);
  });

  it("finds a cycle within one folder, through type-only imports too", () => {
    const problems = checkLayers([
      { path: "limits/a.ts", imports: ["./b.ts"] },
      { path: "limits/b.ts", imports: ["./c.ts"] },
      { path: "limits/c.ts", imports: ["./a.ts", "../clock.ts"] },
      { path: "clock.ts", imports: [] },
    ]).map(formatProblem);
    expect(problems).toEqual([
      'src/limits/a.ts imports "./b.ts": a cycle: limits/a.ts → limits/b.ts → limits/c.ts → limits/a.ts',
    ]);
  });

  it("keeps the sandbox apart, both ways", () => {
    const problems = checkLayers([
      { path: "runtime/bot.ts", imports: ["../sandbox/index.ts"] },
      { path: "hosting/start.ts", imports: ["../sandbox/index.ts"] },
      { path: "sandbox/index.ts", imports: ["../api/types.ts", "../store/store.ts"] },
      { path: "api/types.ts", imports: [] },
      { path: "store/store.ts", imports: [] },
    ]).map(formatProblem);
    expect(problems).toEqual([
      'src/runtime/bot.ts imports "../sandbox/index.ts": only hosting, cli, entry may import sandbox (it stands apart)',
      'src/sandbox/index.ts imports "../store/store.ts": sandbox may import only api, limits, base',
    ]);
  });

  it("lets only hosting, cli and the entry points wire the Redis parts in", () => {
    const problems = checkLayers([
      { path: "observe/metrics.ts", imports: ["../redis/store.ts"] },
      { path: "hosting/start.ts", imports: ["../redis/store.ts"] },
      { path: "redis/store.ts", imports: ["../store/store.ts"] },
      { path: "store/store.ts", imports: [] },
    ]).map(formatProblem);
    expect(problems).toEqual([
      'src/observe/metrics.ts imports "../redis/store.ts": only hosting, cli, entry may import redis (they wire it in; lower layers define what it implements)',
    ]);
  });

  it("refuses a folder no layer holds, and lets moderation import only the base", () => {
    const problems = checkLayers([
      { path: "gadgets/x.ts", imports: [] },
      { path: "moderation/score.ts", imports: ["../store/store.ts", "../log.ts"] },
      { path: "store/store.ts", imports: [] },
      { path: "log.ts", imports: [] },
    ]).map(formatProblem);
    expect(problems).toEqual([
      "src/gadgets/x.ts: src/gadgets is in no layer; add it to LAYERS",
      'src/moderation/score.ts imports "../store/store.ts": moderation may not import store: store is a higher layer (imports run downwards only)',
    ]);
  });
});
