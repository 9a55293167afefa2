/**
 * A bot's liveness, per trigger: when it last checked with the service (a poll, or the stream
 * saying it is there) and when it last brought an event. `bot status` shows their ages: a
 * trigger that has gone quiet is how a silent wedge shows.
 */
import type { Clock } from "../clock.ts";
import type { TriggerName } from "../triggers/events.ts";
import type { TriggerStatus } from "./types.ts";

/** One bot's liveness figures; see the module comment. */
export class Liveness {
  private readonly triggers: Partial<Record<TriggerName, TriggerStatus>> = {};
  /** How many checks and events were recorded: unchanged, so is every figure here. */
  private touches = 0;

  /**
   * `onTouch`: told of every check and event (`event` says which), as it is recorded. `saved`:
   * the figures of the bot's last saved status (an earlier run's), continued from, so `bot
   * status` right after a restart still shows the last event rather than "never".
   */
  constructor(
    private readonly clock: Clock,
    private readonly onTouch?: (trigger: TriggerName, event: boolean) => void,
    saved?: Partial<Record<TriggerName, TriggerStatus>>,
  ) {
    for (const [trigger, s] of Object.entries(saved ?? {}) as Array<[TriggerName, TriggerStatus]>)
      if (s && typeof s.events === "number") this.triggers[trigger] = { ...s };
  }

  /** Records a check of a trigger, or (`event`) an event from it. */
  touch(trigger: TriggerName, event = false): void {
    const s = (this.triggers[trigger] ??= { events: 0 });
    this.touches++;
    const now = this.clock.now();
    s.lastCheckAt = now;
    if (event) {
      s.lastEventAt = now;
      s.events++;
    }
    this.onTouch?.(trigger, event);
  }

  /** Grows with every check and event recorded: the status saver's cheap test for "nothing new here". */
  get revision(): number {
    return this.touches;
  }

  /**
   * A copy of the figures (flat numbers per trigger): the status of every bot is gathered
   * every 15 s, and structuredClone of each was a good part of that work with 10,000 bots.
   */
  snapshot(): Partial<Record<TriggerName, TriggerStatus>> {
    const out: Partial<Record<TriggerName, TriggerStatus>> = {};
    for (const [trigger, s] of Object.entries(this.triggers) as Array<[TriggerName, TriggerStatus]>)
      out[trigger] = { ...s };
    return out;
  }
}
