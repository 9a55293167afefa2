/**
 * The sandbox's rate-limit windows, kept as live `SlidingWindow`s and written back to
 * `data.meter.windows` (plain arrays of event times) when the state is saved.
 *
 * Rebuilding a window from its array and copying it back on every request showed in
 * profiles as one of the largest costs of a request; the live windows avoid both. The plain
 * arrays stay the persistent form: a window is rebuilt from `data.meter.windows` when it is
 * first used, and {@link WindowBook.flush} writes every window used since back before a save.
 */
import { SlidingWindow } from "../../limits/index.ts";
import type { SandboxData } from "../model/index.ts";

export class WindowBook {
  private live = new Map<string, { window: SlidingWindow; source: number[] | undefined }>();

  constructor(private readonly data: SandboxData) {}

  /** The window stored under `key`, with the limit's size and length. */
  get(key: string, max: number, windowMs: number): SlidingWindow {
    const stored = this.data.meter.windows[key];
    const held = this.live.get(key);
    // Reuse the live window unless the stored array was replaced behind its back.
    if (held && held.source === stored && held.window.max === max && held.window.windowMs === windowMs)
      return held.window;
    const window = new SlidingWindow(max, windowMs, stored ?? []);
    this.live.set(key, { window, source: stored });
    return window;
  }

  /** Writes every live window back into `data.meter.windows`, dropping empty ones. */
  flush(now: number): void {
    for (const [key, held] of this.live) {
      const times = held.window.snapshot(now);
      if (times.length === 0) {
        delete this.data.meter.windows[key];
        this.live.delete(key);
        continue;
      }
      this.data.meter.windows[key] = times;
      held.source = times;
    }
  }
}
