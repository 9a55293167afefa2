/**
 * The silent logger stands for a pino logger made on its first use (src/log.ts): it behaves
 * as one, children and levels included.
 */
import { describe, expect, it } from "vitest";
import { silentLogger } from "../src/log.ts";

describe("silentLogger", () => {
  it("is a silent pino logger: its methods, children and level work and write nothing", () => {
    expect(silentLogger.level).toBe("silent");
    expect(silentLogger.isLevelEnabled("error")).toBe(false);
    const child = silentLogger.child({ bot: "greeter" });
    expect(child.level).toBe("silent");
    expect(child.bindings()).toEqual({ bot: "greeter" });
    expect(() => {
      silentLogger.info({ token: "x" }, "dropped");
      child.error("dropped too");
    }).not.toThrow();
    expect(typeof silentLogger.flush).toBe("function");
    expect("child" in silentLogger).toBe(true);
  });
});
