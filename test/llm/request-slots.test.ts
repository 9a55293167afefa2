/**
 * The request slots of a model server (src/llm/request-slots.ts): at most `limit` held at
 * once, handed out first come first served, a waiter that gives up holds nothing, and a slot
 * given back twice counts once; each bot's slots and waits are counted, and the process keeps a
 * server's slots only while one is held or waited for.
 */
import { describe, expect, it } from "vitest";
import {
  keptModelServers,
  modelSlots,
  modelSlotUse,
  RequestSlots,
  type ReleaseSlot,
} from "../../src/llm/request-slots.ts";

const never = new AbortController().signal;
const turn = () => new Promise((r) => setImmediate(r));

describe("RequestSlots", () => {
  it("holds at most `limit` at once; the others get theirs in the order they asked as slots come back", async () => {
    const slots = new RequestSlots();
    const got: number[] = [];
    const releases = new Map<number, ReleaseSlot>();
    for (let i = 0; i < 6; i++)
      void slots.acquire(2, never).then((release) => {
        got.push(i);
        releases.set(i, release);
      });
    await turn();
    expect({ got, inFlight: slots.inFlight, queued: slots.queued }).toEqual({ got: [0, 1], inFlight: 2, queued: 4 });
    releases.get(1)!();
    await turn();
    expect(got).toEqual([0, 1, 2]);
    // Given back twice: one slot, not two.
    releases.get(1)!();
    await turn();
    expect({ got, inFlight: slots.inFlight }).toEqual({ got: [0, 1, 2], inFlight: 2 });
    releases.get(0)!();
    releases.get(2)!();
    await turn();
    expect(got).toEqual([0, 1, 2, 3, 4]);
  });

  it("a waiter that gives up is rejected, holds nothing, and the next in line gets the slot", async () => {
    const slots = new RequestSlots();
    const first = await slots.acquire(1, never);
    const stop = new AbortController();
    const leaving = slots.acquire(1, stop.signal);
    let next: ReleaseSlot | undefined;
    void slots.acquire(1, never).then((r) => (next = r));
    stop.abort(new Error("stopped"));
    await expect(leaving).rejects.toThrow("stopped");
    expect(slots.queued).toBe(1);
    first();
    await turn();
    expect(next).toBeDefined();
    expect(slots.inFlight).toBe(1);
    await expect(slots.acquire(1, stop.signal)).rejects.toThrow("stopped");
  });

  it("a waiter with a smaller limit waits until fewer than its own are held; those behind it wait for it", async () => {
    const slots = new RequestSlots();
    const held = [await slots.acquire(3, never), await slots.acquire(3, never)];
    const order: string[] = [];
    void slots.acquire(1, never).then(() => order.push("strict"));
    void slots.acquire(3, never).then(() => order.push("behind"));
    await turn();
    expect(order).toEqual([]);
    held[0]!();
    await turn();
    expect(order).toEqual([]);
    held[1]!();
    await turn();
    // Its own limit holds only itself: once it has its slot, the one behind it gets one too.
    expect(order).toEqual(["strict", "behind"]);
  });

  it("one set of slots per model server in the process", () => {
    expect(modelSlots("http://127.0.0.1:1/v1/chat/completions")).toBe(
      modelSlots("http://127.0.0.1:1/v1/chat/completions"),
    );
    expect(modelSlots("http://127.0.0.1:1/v1/chat/completions")).not.toBe(
      modelSlots("http://127.0.0.1:2/v1/chat/completions"),
    );
  });

  it("counts each bot's slots and waits, and keeps a server's slots only while one is held or waited for", async () => {
    const endpoint = "http://127.0.0.1:3/v1/chat/completions";
    const slots = modelSlots(endpoint, "http://user:secret@127.0.0.1:3");
    expect(slots.server).toBe("http://127.0.0.1:3/");
    const a = await slots.acquire(2, never, "ana");
    const b = await slots.acquire(2, never, "bea");
    const stop = new AbortController();
    const waiting = [slots.acquire(2, stop.signal, "bea"), slots.acquire(2, never, "bea")];
    expect(modelSlotUse("ana")).toEqual([{ server: "http://127.0.0.1:3/", inFlight: 1, waiting: 0 }]);
    expect(modelSlotUse("bea")).toEqual([{ server: "http://127.0.0.1:3/", inFlight: 1, waiting: 2 }]);
    expect(modelSlotUse("cid")).toEqual([]);
    stop.abort(new Error("stopped"));
    await expect(waiting[0]).rejects.toThrow("stopped");
    a();
    const c = await waiting[1]!;
    expect(modelSlotUse("bea")).toEqual([{ server: "http://127.0.0.1:3/", inFlight: 2, waiting: 0 }]);
    expect(modelSlotUse("ana")).toEqual([]);
    b();
    expect(keptModelServers()).toContain(endpoint);
    c();
    // Nothing held or waited for: the process keeps nothing for the server; asked again, it starts empty.
    expect(keptModelServers()).not.toContain(endpoint);
    const again = modelSlots(endpoint);
    expect(again).not.toBe(slots);
    // The last waiter giving up lets them go too, as does a caller already stopped.
    const held = await again.acquire(1, never, "ana");
    const leaving = again.acquire(1, stop.signal, "ana");
    await expect(leaving).rejects.toThrow("stopped");
    held();
    expect(keptModelServers()).not.toContain(endpoint);
    await expect(modelSlots(endpoint).acquire(1, stop.signal, "ana")).rejects.toThrow("stopped");
    expect(keptModelServers()).not.toContain(endpoint);
  });
});
