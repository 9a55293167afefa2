/**
 * Drives a dialog engine alone as the plugins stage does (src/plugins/stage.ts), here without
 * its time limit: holds the user's lock, asks the engine for the turn, runs the plugin's step,
 * hands its outcome back to the engine, and sends the turn's message.
 */
import { settleTurn } from "../../../src/plugins/stage.ts";
import type { StartResult } from "../../../src/plugins/dialogs/types.ts";
import type { DialogEngine, DialogTurn, DueWait, Inbound, TurnRun } from "../../../src/plugins/dialogs/engine.ts";

/** Runs a turn's step, settles it with its outcome, and sends what it said. */
async function play(engine: DialogEngine, turn: DialogTurn): Promise<boolean> {
  let failure: { error: unknown } | undefined;
  try {
    if (turn.handler) await turn.handler(turn.turn);
  } catch (error) {
    failure = { error };
  }
  return settleTurn(engine, turn, failure);
}

/** Gives a user's message to the dialog waiting for it: whether one took it. */
export async function route(engine: DialogEngine, inbound: Inbound, run: TurnRun): Promise<boolean> {
  const release = await engine.acquire(inbound.user.id);
  try {
    const { taken, turn } = engine.answer(inbound, run);
    if (turn) await play(engine, turn);
    return taken;
  } finally {
    release();
  }
}

/** Opens a dialog with the message's user and runs its first turn. */
export async function start(
  engine: DialogEngine,
  plugin: string,
  name: string,
  inbound: Inbound,
  run: TurnRun,
): Promise<StartResult> {
  const refused = engine.startable(plugin, name);
  if (refused) return refused;
  const release = await engine.acquire(inbound.user.id);
  try {
    const opened = engine.open(plugin, name, inbound, run);
    if (!("turn" in opened)) return opened;
    return (await play(engine, opened.turn)) ? { started: true, id: opened.id } : { started: false, reason: "stopped" };
  } finally {
    release();
  }
}

/** Resumes the engine, its timeout turns run with `run` under a scope of their own each. */
export function resume(engine: DialogEngine, run: Omit<TurnRun, "scope">): void {
  const due = engine.resume();
  const timeout = async (wait: DueWait) => {
    const release = await engine.acquire(wait.user);
    try {
      const turn = engine.timeoutTurn(wait, run);
      if (!turn) return;
      await play(engine, turn);
      for (const err of turn.run.scope.finish()) run.log.error({ plugin: turn.plugin }, err.message);
    } finally {
      release();
    }
  };
  void (async () => {
    for (let waits = await due.take(); waits; waits = await due.take())
      for (const wait of waits)
        timeout(wait).catch((err: unknown) => run.log.error({ err }, `a dialog's timeout failed: ${String(err)}`));
  })();
}
