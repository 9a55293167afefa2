/**
 * A bot built from its parts, by injection: its action layer (the process's action system,
 * the bot's account, its file's budget and reply rules), its plugins stage (src/plugins:
 * each plugin's setup run for the bot), its triggers as its file and plan make them, and the
 * engine (src/runtime) that takes its events from the triggers to the stage.
 */
import type { ActionLayer, ActionSystem } from "../actions/index.ts";
import { clientVerifiers } from "../actions/verifiers.ts";
import { heldExecutor, type Holding } from "../actions/holding.ts";
import type { ApiClient } from "../api/client.ts";
import type { Clock } from "../clock.ts";
import { JudgeSlot, ModelBudget, type ModelAccess } from "../llm/index.ts";
import type { Logger } from "../log.ts";
import { lazyChild } from "../lazy-log.ts";
import type { AbuseModel } from "../moderation/model.ts";
import { PluginsStage } from "../plugins/stage.ts";
import { inboxReader } from "../runtime/inbox.ts";
import { BotRuntime } from "../runtime/bot.ts";
import type { BotIdentity, BotStatus } from "../runtime/types.ts";
import type { Store } from "../store/store.ts";
import type { RuntimeObserver } from "./observer.ts";
import { triggerSpecs, unheardEvents, type PollerCount } from "./trigger-plan.ts";
import type { FleetBot, HostedBot } from "./types.ts";

/** What every bot of the process is built with. */
export interface BotFactoryDeps {
  actions: ActionSystem;
  store: Store;
  clock: Clock;
  logger: Logger;
  observer?: RuntimeObserver;
  /** The service's base URL (`bot.models.serviceUrl`: where `llm-reply`'s `url: sandbox` points). */
  serviceUrl: string;
  /** How long one handler may run (waiting for the budget does not count). */
  handlerTimeoutMs: number;
  pollers: PollerCount;
  /** How the bot's mentions come: through the app's stream, or polled. */
  mentionsVia(hosted: HostedBot): "poll" | "stream";
  /** The service refused the bot's account while it ran (a revoked token: `token`, the one refused). */
  onRevoked(bot: string, err: unknown, token: string): void;
  /** The abuse model taught in the state (./taught-model.ts); absent: the shipped one. */
  abuseModel?: AbuseModel;
  /** With the bots shared between processes: their requests leave and end inside their leases. */
  holding?: Holding;
}

/** A bot built and set up, not started yet. */
export interface BuiltBot {
  bot: BotRuntime;
  layer: ActionLayer;
}

/** What the bot's plugins see of language models (`bot.models`): its model budget, figures and judge. */
function modelAccess(bot: string, llmBudget: HostedBot["config"]["budget"]["llm"], deps: BotFactoryDeps): ModelAccess {
  const { clock, observer } = deps;
  // (Named, not spread first: an object literal that begins with a spread gets a hidden class
  // of its own in V8, a few hundred bytes a bot.)
  return {
    bot,
    clock,
    serviceUrl: deps.serviceUrl,
    ...(llmBudget ? { budget: new ModelBudget(bot, llmBudget, clock, deps.actions.store) } : {}),
    ...(observer?.model ? { observe: observer.model } : {}),
    judge: new JudgeSlot(),
    ...(deps.abuseModel ? { abuse: deps.abuseModel } : {}),
  };
}

/** Builds one bot whose account is known, and runs its plugins' setup. */
export async function buildBot(
  hosted: HostedBot,
  client: ApiClient,
  identity: BotIdentity,
  deps: BotFactoryDeps,
): Promise<BuiltBot> {
  const { config, app } = hosted;
  const { store, clock, observer } = deps;
  // Made when the bot first logs (its plugins' loggers under it too): most bots log nothing for hours.
  const log = lazyChild(deps.logger, { bot: config.name });
  // The model's budget is the llm plugin's own (../llm), not a window of the service. It is
  // kept where the ledger is: a dry run's starts from the real state and changes only its copy.
  const { llm: llmBudget, ...budget } = config.budget;
  // The client is the executor itself: an action goes from the pipeline to the client.
  const send = client.send.bind(client);
  const layer = deps.actions.bot({
    bot: config.name,
    account: { appId: app.id, userId: identity.userId, plan: app.plan },
    log,
    executor: deps.holding ? heldExecutor(config.name, send, deps.holding) : send,
    // Reads (the polls, ctx.read) go out as described, outside the hold: a read changes nothing.
    reader: send,
    verifiers: clientVerifiers(client, identity.userId),
    ...(deps.holding ? { settledAt: settledAtOf(deps.holding, config.name) } : {}),
    budget,
    replyToBots: config.reply_to_bots,
    replyCooldownMs: config.reply_cooldown,
    ...(app.enrolmentDay ? { enrolmentDay: app.enrolmentDay } : {}),
    onRevoked(err) {
      deps.onRevoked(config.name, err, hosted.token.token);
    },
  });
  // What the stage and the engine both work with: who the bot is, its client and action layer.
  const models = modelAccess(config.name, llmBudget, deps);
  const stage = new PluginsStage({
    identity,
    api: client,
    layer,
    store,
    // The bot's inbox, as its dialogs read it (its runtime's Inbox is the one that changes it).
    inbox: inboxReader(store, config.name),
    clock,
    log,
    handlerTimeoutMs: deps.handlerTimeoutMs,
    file: config.file,
    models,
    ...(config.session
      ? {
          session: { maxBytes: config.session.max_bytes, ...(config.session.ttl ? { ttlMs: config.session.ttl } : {}) },
        }
      : {}),
  });
  const bot = new BotRuntime({
    identity,
    layer,
    store,
    clock,
    log,
    name: config.name,
    appId: app.id,
    ...(app.enrolmentDay ? { enrolmentDay: app.enrolmentDay } : {}),
    handling: stage,
    triggers: triggerSpecs(hosted, deps.pollers, deps.mentionsVia(hosted)),
    budgetPolicy: budget,
    ...(observer
      ? {
          onHandled(kind) {
            observer.event({ bot: config.name, kind, at: clock.now() });
          },
        }
      : {}),
  });
  await stage.setup(config.plugins);
  for (const line of unheardEvents(config, (event) => stage.handles(event))) log.warn(line);
  return { bot, layer };
}

/**
 * The status of a bot that never ran: its account refused at start by the service
 * (`accountRefused`: signing in again brings it back), or its start failed (a plugin's setup
 * threw): it shows paused, with why, in `bot status` and on the status page.
 */
export function refusedStatus(hosted: FleetBot, reason: string, at: number, accountRefused = true): BotStatus {
  return {
    bot: hosted.config.name,
    appId: hosted.app.id,
    userId: "",
    username: "",
    plan: hosted.app.plan,
    paused: { reason, at, ...(accountRefused ? { accountRefused: true as const } : {}) },
    triggers: {},
    inbox: 0,
    updatedAt: at,
  };
}

/** When the actions a bot's earlier holder left pending may be checked (../actions/holding.ts). */
const settledAtOf = (holding: Holding, bot: string) => () => holding.settledAt(bot);
