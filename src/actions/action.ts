/**
 * The vocabulary of the action layer: what an action is, what performing one can come to,
 * and the two hooks the runtime plugs in (the executor that sends it, the verifier that
 * asks the service whether it already happened).
 */
import type { EndpointKey } from "../api/endpoints.ts";
import type { HeaderBag } from "../api/rate-limit-headers.ts";
import type { Created, DmSent, Following, Hidden, Liked, Muting, Reposted } from "../api/schema.ts";

/** The actions a plugin can take (`ctx.reply`, `ctx.like`...). */
export type ActionKind = "reply" | "like" | "repost" | "follow" | "dm" | "hide" | "post" | "mute";

/** What the layer calls a budgeted read made through {@link ActionLayer.read}. */
export const READ_KIND = "read";

export type { HeaderBag };

/**
 * One request the layer will send: its endpoint, path parameters and JSON body in the
 * service's wire shapes, so an executor can hand them to the client without knowing the
 * action kinds.
 */
/** An action's idempotency key (see {@link Action.key}): what the ledger files it under. */
export const actionKey = (bot: string, kind: string, target: string): string => `${bot}:${kind}:${target}`;

export interface Action {
  /**
   * The idempotency key, `<bot>:<kind>:<target>` (e.g. `greeter:reply:1460323737035677698`):
   * the ledger never sends the same key twice. Absent for reads, which are not in the ledger.
   */
  key?: string;
  kind: ActionKind | typeof READ_KIND;
  bot: string;
  /** The acting account's user id (the `:id` of user-scoped paths). */
  userId: string;
  endpoint: EndpointKey;
  /** What the action is about: the post replied to, liked or hidden, the user followed... */
  target: string;
  /** Path parameters by the endpoint template's names (`{ id: "42" }` for `/2/users/:id/likes`). */
  path: Record<string, string>;
  /** The JSON body (wire-facts part 2, renamed), when the endpoint takes one. */
  body?: unknown;
  /** A described read's query ({@link ActionLayer.fetch}: a poll's page, a plugin's `ctx.read`). */
  query?: Record<string, unknown>;
  /**
   * What reply safety needs to know about the post replied to, the dialog the bot holds
   * that the action speaks in, if any (src/plugins/dialogs), and how a person
   * reads the target (`about`: `@ana: "any tips for…"` for a post, `@ana` for a user), for
   * log lines and the status page only, never for a decision.
   */
  context?: {
    authorId?: string;
    conversationId?: string;
    dialog?: string;
    /**
     * The name `dialog` had in actions recorded before postbot 0.2: an unfinished one resumed
     * after an upgrade is still treated as a dialog's.
     */
    conversation?: string;
    about?: string;
    /**
     * The action's written text is recorded and its writer's {@link CheckText} has not passed
     * yet: it is checked before it goes on, again after a restart (see `awaitsCheck`).
     */
    unchecked?: true;
  };
  /** Lower runs sooner when actions compete for the same window. */
  priority: number;
  /** When the action was asked for (ms on the layer's clock). */
  createdAt: number;
  /** After this (ms), the action is no longer worth sending and is dropped. */
  expiresAt?: number;
}

/** What an executor returns: the response body and its headers (for the budget's corrections). */
export interface Executed<R = unknown> {
  result: R;
  headers?: HeaderBag;
}

/**
 * Sends an action. The runtime plugs the API client in; tests plug fakes. It throws the
 * client's errors (`RateLimitError`, `NetworkError`, `ProblemError`...) on failure.
 */
export type Executor = (action: Action, signal: AbortSignal) => Promise<Executed>;

/** What a verifier found: the action is on the service already (with what to record), or not. */
export type Verification = { done: true; result?: unknown } | { done: false };

/**
 * Asks the service whether an action left unfinished by a crash already happened (did the
 * reply get posted? is the post liked?). The check is a read, so it is budgeted like any
 * other: `endpoint` names the read it makes.
 */
export interface Verifier {
  endpoint: EndpointKey;
  /** The read an action's check makes, when it depends on the action (a DM answered in a conversation). */
  endpointFor?(action: Action): EndpointKey;
  check(action: Action, signal: AbortSignal): Promise<Executed<Verification>>;
}

/**
 * How performing an action ended. Performing never throws for these; plugins may look at
 * `status` or ignore it.
 *
 * - `sent`: the service accepted it (`result` is its response body).
 * - `dry-run`: `--dry-run`: logged and counted against a simulated budget, never sent.
 * - `duplicate`: the ledger (or the service, asked by a verifier) says it was done already.
 * - `refused`: a rule forbids it: reply safety, the plan does not offer the endpoint, a cap of 0.
 * - `dropped`: it waited past its time-to-live.
 * - `failed`: the service refused it or kept failing; `maybeSent` when it may have happened.
 * - `deferred`: postbot is stopping; the ledger keeps the action and the next start sends it.
 */
export type Outcome<R = unknown> =
  | { status: "sent"; key?: string; result: R }
  | { status: "dry-run"; key?: string; result: R }
  | { status: "duplicate"; key: string; result?: unknown }
  | { status: "refused"; key?: string; reason: string }
  | { status: "dropped"; key?: string; reason: string }
  | { status: "failed"; key?: string; reason: string; maybeSent: boolean; error?: unknown }
  | { status: "deferred"; key?: string; reason: string };

/**
 * What the service answers each kind of action it accepted: a `sent` (or `--dry-run`) outcome
 * carries it as `result`. A reply or a post gives the new post (`result.data.id`), a DM the
 * new message (`result.data.dm_event_id`).
 */
export interface ActionResults {
  reply: { data: Created };
  post: { data: Created };
  like: { data: Liked };
  repost: { data: Reposted };
  follow: { data: Following };
  dm: { data: DmSent };
  hide: { data: Hidden };
  mute: { data: Muting };
}

/** How an action of `kind` ended, its `sent` result typed by the kind (what each verb resolves with). */
export type ActionOutcome<K extends ActionKind> = Outcome<ActionResults[K]>;

/**
 * Writes an action's text when the action is about to go, not when it is asked for: a
 * language model's reply (the `llm-reply` plugin). The layer calls it at most once per
 * idempotency key, after the rules that need no text (hidden guard, ledger, reply safety)
 * let the action through, and records the text with the action's ledger entry, durably,
 * before anything else happens to it: a retry or a restart sends the recorded text and
 * never calls the writer again. Throw {@link TextRefused} when the text must not be sent
 * (the outcome is `refused`), or {@link TextExpired} when the action's time-to-live passed
 * before anything was asked for it (`dropped`); any other error is a failure to write
 * (`failed`, nothing sent).
 *
 * `recorded` resolves once the text the call returns is durable with the ledger entry, or
 * once it never will be (the call threw, the record failed, the ledger is off); it never
 * rejects. A writer that holds something for its text until a crash can no longer lose it (a
 * model server's request slot: src/llm/request-slots.ts) lets it go then. A caller other than
 * the layer may leave it out: the writer then lets go when it returns.
 *
 * `expiresAt` is the action's time-to-live (ms on the layer's clock), when it has one: a
 * writer that waits before its work costs anything (a model's budget, its server's request
 * slot) looks at it once the wait is over, and throws {@link TextExpired} rather than write a
 * text that would only be dropped.
 *
 * `stopping` aborts when the process stops (the layer closes): a writer still waiting then
 * (for its model's budget or request slot) gives up and throws {@link TextDeferred}; a request
 * already sent is not cut (it ends with `signal`, as the layer's requests in flight do).
 */
export type WriteText = ((
  signal: AbortSignal,
  recorded?: Promise<void>,
  expiresAt?: number,
  stopping?: AbortSignal,
) => Promise<string>) & {
  /**
   * A check that may take time (a moderation judge over the network): run once the text is
   * recorded, not before, so that a crash while it runs never costs the writer a second call.
   * Until it passes, the record says the text is unchecked, and a restart runs it again on
   * the recorded text. Throw {@link TextRefused} to refuse the text.
   */
  readonly check?: CheckText;
};

/** Checks a written text before it goes (see {@link WriteText}`.check`). */
export type CheckText = (text: string, signal: AbortSignal) => Promise<void>;

/**
 * Thrown by a {@link WriteText} for a text that must not be sent (a moderation check refused
 * it, nothing usable was written): the action ends `refused` with this message as its reason.
 */
export class TextRefused extends Error {
  override name = "TextRefused";
}

/**
 * Thrown by a {@link WriteText} whose action's time-to-live (its `expiresAt`) passed while it
 * waited, before it asked for anything (a model's request never left): the action ends
 * `dropped`, as one that waited past it in the budget queue does, with this message as its
 * reason.
 */
export class TextExpired extends Error {
  override name = "TextExpired";
}

/**
 * Thrown by a {@link WriteText} that stopped waiting because the process stops, before any
 * request left: the action ends `deferred` (the ledger keeps it, and the next start writes
 * it), as an action still waiting for the service's budget does.
 */
export class TextDeferred extends Error {
  override name = "TextDeferred";
}

/** The kinds whose body carries a text a {@link WriteText} may write. */
const TEXT_KINDS: ReadonlySet<string> = new Set(["reply", "post", "dm"]);

/** Whether the action is still waiting for its text to be written (see {@link WriteText}). */
export function awaitsText(action: Pick<Action, "kind" | "body">): boolean {
  return TEXT_KINDS.has(action.kind) && typeof (action.body as { text?: unknown } | undefined)?.text !== "string";
}

/** Whether the action's recorded text still waits for its writer's check (see {@link WriteText}). */
export function awaitsCheck(action: Pick<Action, "context">): boolean {
  return action.context?.unchecked === true;
}

/** A budget slot an action's request was counted in (see `AccountBudget.take`). */
export interface SlotRecord {
  readonly at: number;
  readonly keys: readonly string[];
}
