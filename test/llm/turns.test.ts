/**
 * The turns the work around model requests takes (src/llm/turns.ts): callers go one after
 * another, each in a turn of the event loop of its own, so what else came in meanwhile (a
 * stream's line, a like's answer) runs between them instead of after all of them.
 */
import { connect, createServer, type AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { Turns } from "../../src/llm/turns.ts";

describe("Turns", () => {
  it("gives callers their turns in the order they asked, one per turn of the event loop", async () => {
    const turns = new Turns();
    const order: string[] = [];
    const all = Array.from({ length: 3 }, (_, i) =>
      turns.next().then(() => {
        order.push(`turn ${i}`);
        // Work that comes up during a turn runs before the next turn.
        setImmediate(() => order.push(`work after turn ${i}`));
      }),
    );
    await Promise.all(all);
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([
      "turn 0",
      "work after turn 0",
      "turn 1",
      "work after turn 1",
      "turn 2",
      "work after turn 2",
    ]);
  });

  it("lets a socket's data in between two of a hundred turns, not after the last", async () => {
    const turns = new Turns();
    const order: string[] = [];
    const server = createServer((socket) => socket.end("x"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
      const read = new Promise<void>((resolve) => {
        socket.on("data", () => order.push("data read"));
        socket.on("close", () => resolve());
      });
      await new Promise((r) => socket.once("connect", r));
      const all = Array.from({ length: 100 }, (_, i) => turns.next().then(() => void order.push(`turn ${i}`)));
      await Promise.all([...all, read]);
      expect(order).toContain("data read");
      expect(order.indexOf("data read")).toBeLessThan(order.indexOf("turn 99"));
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
