/**
 * A bot's cron schedules on the injected clock: at each instant the schedule trigger says
 * its expression fires (../triggers/schedule.ts), the timer puts a `schedule` event in the
 * bot's inbox, and the occurrence lasts until that event has been handled.
 *
 * Each occurrence is computed from the previous one (not from "now"), so a clock moved across
 * several occurrences fires each of them, in order. Runs never overlap: when a run is still
 * going at the next fire time, that occurrence is skipped (and logged), as node-cron's
 * `noOverlap` does.
 */
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { BotEvent } from "../triggers/events.ts";
import { checkSchedule, nextOccurrence, type ScheduleSpec } from "../triggers/schedule.ts";
import type { Inbox } from "./inbox.ts";

export interface ScheduleHandle {
  /** When the schedule fires next (ms on the clock), or undefined if never. */
  nextRun(): number | undefined;
  stop(): void;
}

/** Where a schedule's events go: the bot's inbox (which says when each was handled). */
export type ScheduleInbox = Pick<Inbox, "deliver" | "handled">;

/** The `schedule` event of the occurrence due at `at`. */
export function scheduleEvent(spec: ScheduleSpec, at: number): BotEvent {
  return { kind: "schedule", id: `schedule:${spec.name}:${at}`, schedule: { name: spec.name, cron: spec.cron, at } };
}

/** Starts a schedule's timer; see the module comment. */
export function startSchedule(spec: ScheduleSpec, clock: Clock, inbox: ScheduleInbox, log: Logger): ScheduleHandle {
  const problem = checkSchedule(spec);
  if (problem) throw new Error(`schedule ${spec.name}: ${problem}`);
  let next = nextOccurrence(spec, clock.now());
  let cancel: (() => void) | undefined;
  let running = false;
  let stopped = false;

  const arm = () => {
    if (stopped || next === undefined) return;
    const at = next;
    cancel = clock.setTimeout(() => fire(at), Math.max(0, at - clock.now()));
  };

  const fire = (at: number) => {
    next = nextOccurrence(spec, at);
    arm();
    if (running) {
      const when = new Date(at).toISOString();
      log.warn(
        { schedule: spec.name, at: when },
        `schedule ${spec.name}: the previous run is still going; skipping this one`,
      );
      return;
    }
    const event = scheduleEvent(spec, at);
    const handled = inbox.handled(event.id);
    try {
      inbox.deliver([event]);
    } catch (err) {
      log.error({ schedule: spec.name, err }, `schedule ${spec.name} failed`);
      return;
    }
    running = true;
    void handled.then(() => {
      running = false;
    });
  };

  arm();
  return {
    nextRun: () => (stopped ? undefined : next),
    stop() {
      stopped = true;
      cancel?.();
    },
  };
}
