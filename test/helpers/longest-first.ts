/**
 * The order the test files start in (vitest.config.ts `sequence.sequencer`): the files named
 * in a checked-in list first, in its order, then the rest in vitest's own order.
 *
 * Vitest starts the files it measured longest first, from durations it caches in
 * node_modules/.vite/vitest; a fresh clone has none, and starts the largest files first. The
 * longest files are not the largest (commands-readme.test.ts, 40 s of waiting on commands, is
 * a small file), so on a fresh clone one of them started two minutes in and ended the run 40 s
 * after everything else. Naming them keeps the run's end from waiting on one late long file.
 */
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** A sequencer class that starts `first` (paths relative to the root) before everything else. */
export function longestFirst(first: readonly string[]): typeof BaseSequencer {
  const rank = new Map(first.map((path, i) => [path, i]));
  return class LongestFirst extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const sorted = await super.sort(files);
      const root = this.ctx.config.root;
      const rankOf = (spec: TestSpecification) => rank.get(relative(root, spec.moduleId)) ?? first.length;
      // A stable sort: the unlisted keep vitest's order (projects, failed first, measured longest first).
      return sorted
        .map((spec, at) => ({ spec, at, rank: rankOf(spec) }))
        .sort((a, b) => a.rank - b.rank || a.at - b.at)
        .map(({ spec }) => spec);
    }
  };
}
