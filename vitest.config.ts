import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/bench/**", "node_modules/**"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"] },
  },
});
