/**
 * The overlay store (src/store/overlay.ts), a dry run's: it reads the real state and keeps
 * what it writes in memory, over what it read, and never changes the store under it.
 */
import { describe, expect, it } from "vitest";
import { overlayStore } from "../../src/store/overlay.ts";
import { createMemoryStore } from "../../src/store/store.ts";

describe("overlayStore", () => {
  it("reads the store under it, keeps its own writes and deletes over it, and leaves it as it was", async () => {
    const base = createMemoryStore();
    base.set("ledger", "a", { status: "sent" });
    base.set("ledger", "b", { status: "sent" });
    base.set("ledger", "c", { status: "pending" });
    const before = structuredClone(base.entries("ledger"));
    const over = overlayStore(base);

    expect(over.get("ledger", "a")).toEqual({ status: "sent" });
    over.set("ledger", "c", { status: "dry-run" });
    over.set("ledger", "d", { status: "dry-run" });
    over.delete("ledger", "b");
    over.adopt?.("ledger", "e", { status: "dry-run" });
    expect(over.get("ledger", "b")).toBeUndefined();
    expect(over.get("ledger", "c")).toEqual({ status: "dry-run" });
    // The store's order, with what was written here, then what only this one has.
    expect(over.entries("ledger")).toEqual([
      ["a", { status: "sent" }],
      ["c", { status: "dry-run" }],
      ["d", { status: "dry-run" }],
      ["e", { status: "dry-run" }],
    ]);
    // Deleted, then written again: there once more.
    over.set("ledger", "b", { status: "dry-run" });
    expect(over.get("ledger", "b")).toEqual({ status: "dry-run" });
    over.delete("ledger", "d");
    expect(over.entries("ledger").map(([k]) => k)).toEqual(["a", "b", "c", "e"]);

    await over.flush();
    await over.close();
    expect(base.entries("ledger")).toEqual(before);
    expect(base.get("ledger", "d")).toBeUndefined();
  });
});
