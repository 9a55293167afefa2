/**
 * The classifier's warm-up (src/moderation/classifier.ts, `warmClassifier`): a few sample
 * replies classified one per turn of the event loop, never in the caller's, once per process;
 * the plugins that check replies (`llm-reply`, `moderate`) start it when a bot of theirs is
 * set up, so a fresh process's first replies do not pay the classifier's first uses.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Classifier, Verdict } from "../../src/moderation/index.ts";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.ts";
import { createTestBed, type TestBed } from "../../src/testing.ts";

let opened: { bed?: TestBed; sandbox?: Sandbox } = {};
afterEach(async () => {
  await opened.bed?.close();
  await opened.sandbox?.close();
  opened = {};
});

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A classifier that notes the texts it is given. */
function noting(): Pick<Classifier, "classify"> & { texts: string[] } {
  const texts: string[] = [];
  return {
    texts,
    classify(text): Verdict {
      texts.push(text);
      return { abusive: false, score: 0, rules: [] };
    },
  };
}

/** The classifier's module as a fresh process has it (nothing warmed yet). */
async function freshModule() {
  vi.resetModules();
  return import("../../src/moderation/classifier.ts");
}

describe("warmClassifier", () => {
  it("classifies sample replies one per turn of the event loop, none in the caller's, and only once per process", async () => {
    const { warmClassifier } = await freshModule();
    const first = noting();
    const warming = warmClassifier(first);
    expect(first.texts).toEqual([]);
    await turn();
    expect(first.texts).toHaveLength(1);
    await turn();
    expect(first.texts).toHaveLength(2);
    await warming;
    expect(first.texts.length).toBeGreaterThanOrEqual(6);
    expect(new Set(first.texts).size).toBe(first.texts.length);
    // Once per process: a later bot's classifier is not run again.
    const later = noting();
    expect(warmClassifier(later)).toBe(warming);
    await turn();
    expect(later.texts).toEqual([]);
  });

  it.each([
    ["llm-reply", () => import("../../plugins/llm-reply.ts"), { url: "http://127.0.0.1:9", model: "llama3.2" }],
    ["moderate", () => import("../../plugins/moderate.ts"), {}],
  ] as const)("starts when a bot with %s is set up", async (name, load, options) => {
    // The plugin and the classifier's module as a fresh process has them.
    const { warmClassifier } = await freshModule();
    const plugin = (await load()).default;
    const sandbox = (opened.sandbox = await createSandbox());
    opened.bed = await createTestBed({
      sandbox,
      bots: [{ name: "helpdesk", plan: "pro", triggers: { mentions: {} }, plugins: { [name]: options } }],
      plugins: { [name]: plugin },
    });
    // Already under way (or done) with the plugin's classifier: this one is never asked.
    const mine = noting();
    await warmClassifier(mine);
    expect(mine.texts).toEqual([]);
  });
});
