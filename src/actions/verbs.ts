/**
 * How a verb's arguments become an action's request: its target (the key's last part), its
 * path and body in the service's wire shapes, the context reply safety and log lines read,
 * and the text's writer when the text is written when the action goes. The layer makes every
 * verb (`reply`, `like`, ...) from the action kinds table (./kinds.ts), whose `verb` says
 * which of these shapes a kind takes, so a verb is never written out twice.
 */
import { createHash } from "node:crypto";
import type { EndpointKey } from "../api/endpoints.ts";
import type { Action, ActionKind, WriteText } from "./action.ts";
import { dmAnswerTarget } from "./keys.ts";
import { ACTION_KINDS } from "./kinds.ts";
import type { LedgerRider } from "./pipeline.ts";

/** A post as actions refer to it: its id and, when known, what reply safety and time-to-live need. */
export interface PostRef {
  id: string;
  author_id?: string;
  conversation_id?: string;
  /** ISO time (as on the wire) or ms: a reaction's time-to-live counts from it. */
  created_at?: string | number;
  /** How a person reads the post (`@ana: "any tips for…"`): log lines and the status page show it beside the id. */
  about?: string;
}

/** A user as actions refer to them: the id, and how a person reads it (`@ana`), when known. */
export interface UserRef {
  id: string;
  about?: string;
}

/**
 * A direct message as an answer refers to it: the message answered (its id keys the answer),
 * its conversation, and its sender (whom a one-to-one answer goes to, and what reply safety
 * checks).
 */
export interface DmRef {
  id: string;
  dm_conversation_id: string;
  sender_id: string;
}

/** Per-call choices a plugin may make; every one has a default from the kind. */
export interface ActionOptions {
  /** Overrides the target part of the idempotency key (`<bot>:<kind>:<key>`). */
  key?: string;
  priority?: number;
  /** Time-to-live in ms, instead of the kind's default. */
  ttlMs?: number;
  signal?: AbortSignal;
}

/**
 * What the plugins stage adds to a plugin's {@link ActionOptions} (a plugin never gives these:
 * its context's verbs are typed with {@link ActionOptions}).
 */
export interface LayerActionOptions extends ActionOptions {
  /** What rides with the action's first ledger record: the handler's session, a dialog's step (./pipeline.ts). */
  rider?: LedgerRider;
  /**
   * The dialog the bot holds that the action speaks in (src/plugins/dialogs): a reply in it is
   * not refused by `reply_cooldown`, and may answer the bot's own question in it (a timeout's
   * word). Kept with the action in the ledger, so a resumed one is treated alike.
   */
  dialog?: string;
}

/** What an action is built from besides its kind, target and options (see `LayerCore.build`). */
export interface ActionParts {
  path?: Record<string, string>;
  body?: unknown;
  context?: Action["context"];
  /** When the post acted on was made (ms): a reaction's time-to-live counts from it. */
  origin?: number;
  /** Replaces the kind's own endpoint (a DM answer in a group conversation). */
  endpoint?: EndpointKey;
}

/** A verb's call as the layer runs it: the action's target and parts, the text's writer, the caller's options. */
export interface VerbRequest {
  target: string;
  parts: ActionParts;
  write?: WriteText | undefined;
  options: (LayerActionOptions & { hidden?: boolean; body?: Record<string, unknown> }) | undefined;
}

export const shortHash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

const originOf = (post: PostRef | string): number | undefined => {
  if (typeof post === "string" || post.created_at === undefined) return undefined;
  const ms = typeof post.created_at === "number" ? post.created_at : Date.parse(post.created_at);
  return Number.isFinite(ms) ? ms : undefined;
};

const idOf = (ref: PostRef | UserRef | string) => (typeof ref === "string" ? ref : ref.id);

/** The action's context saying how a person reads its target, when the caller said. */
const aboutOf = (ref: PostRef | UserRef | string): { context?: Action["context"] } =>
  typeof ref !== "string" && ref.about ? { context: { about: ref.about } } : {};

/**
 * The endpoint of an answer in a group conversation, which has no one participant to send to
 * (every one-to-one message goes to the `dm` kind's `/with/:participant_id` endpoint).
 */
export const DM_GROUP_ENDPOINT: EndpointKey = "POST /2/dm_conversations/:dm_conversation_id/messages";

/** Whether a DM conversation is the one-to-one conversation of two users (`<lower id>-<higher id>`). */
const isOneToOne = (conversation: string, a: string, b: string) =>
  conversation === `${a}-${b}` || conversation === `${b}-${a}`;

const isDmRef = (to: string | UserRef | DmRef): to is DmRef => typeof to !== "string" && "dm_conversation_id" in to;

/** A text as a body gives it (absent when it is written when the action goes), and the writer. */
function textOf(text: string | WriteText) {
  return typeof text === "string" ? { body: { text }, write: undefined } : { body: {}, write: text };
}

/**
 * The target a DM is keyed by (./keys.ts): the message it answers, or its user and text.
 *
 * @throws {TypeError} for a message to a user whose text is written when it goes and that has
 * no `key`: there is no text to key it by.
 */
function dmTarget(to: string | UserRef | DmRef, text: string | WriteText, opts?: ActionOptions): string {
  if (isDmRef(to)) return dmAnswerTarget(to.id);
  if (typeof text === "string") return `${idOf(to)}:${shortHash(text)}`;
  if (opts?.key === undefined)
    throw new TypeError("a direct message whose text is written when it goes needs its own key ({ key })");
  return `${idOf(to)}:${opts.key}`;
}

/**
 * A DM's request: one-to-one (an answer goes to its sender) through the `dm` kind's endpoint,
 * an answer in a group conversation through {@link DM_GROUP_ENDPOINT}; an answer names its
 * sender for reply safety.
 */
function dmParts(to: string | UserRef | DmRef, text: string | WriteText, self: string, opts?: LayerActionOptions) {
  const context: NonNullable<Action["context"]> = isDmRef(to) ? { authorId: to.sender_id } : { ...aboutOf(to).context };
  if (opts?.dialog !== undefined) context.dialog = opts.dialog;
  const group = isDmRef(to) && !isOneToOne(to.dm_conversation_id, self, to.sender_id);
  const path: Record<string, string> = group
    ? { dm_conversation_id: (to as DmRef).dm_conversation_id }
    : { participant_id: isDmRef(to) ? to.sender_id : idOf(to) };
  return {
    path,
    body: textOf(text).body,
    ...(Object.keys(context).length > 0 ? { context } : {}),
    ...(group ? { endpoint: DM_GROUP_ENDPOINT } : {}),
  };
}

/** The origin of an action on a post: when the post was made, when known. */
function withOrigin(post: PostRef | string) {
  const origin = originOf(post);
  return origin !== undefined ? { origin } : {};
}

/** A reply's request: the post answered, in the body and the context reply safety reads. */
function replyRequest(to: PostRef, text: string | WriteText, opts: LayerActionOptions | undefined): VerbRequest {
  const context: NonNullable<Action["context"]> = {};
  if (to.author_id) context.authorId = to.author_id;
  if (to.conversation_id) context.conversationId = to.conversation_id;
  if (to.about) context.about = to.about;
  if (opts?.dialog !== undefined) context.dialog = opts.dialog;
  const { body, write } = textOf(text);
  return {
    target: to.id,
    parts: { body: { ...body, reply: { in_reply_to_post_id: to.id } }, context, ...withOrigin(to) },
    write,
    options: opts,
  };
}

/** A hide's request (or, with `hidden: false`, an unhide's, keyed apart). */
function hideRequest(post: PostRef | string, opts: VerbRequest["options"]): VerbRequest {
  const hidden = opts?.hidden ?? true;
  const id = idOf(post);
  return {
    target: hidden ? id : `${id}:unhide`,
    parts: { path: { id }, body: { hidden }, ...withOrigin(post), ...aboutOf(post) },
    options: opts,
  };
}

/**
 * The request of a verb of `kind` called with `args` (the verb's own arguments, as
 * {@link ActionLayer} types them), built as the kind's `verb` shape says.
 *
 * @throws {TypeError} for a DM to a user whose text is written when it goes and has no `key`.
 */
export function verbRequest(kind: ActionKind, self: string, args: readonly unknown[]): VerbRequest {
  const verb = ACTION_KINDS[kind].verb;
  switch (verb.takes) {
    case "post":
    case "user": {
      const [target, opts] = args as [PostRef | UserRef | string, LayerActionOptions | undefined];
      const post = verb.takes === "post" ? withOrigin(target as PostRef | string) : {};
      const body = { [verb.field]: idOf(target) };
      return { target: idOf(target), parts: { path: { id: self }, body, ...post, ...aboutOf(target) }, options: opts };
    }
    case "hide":
      return hideRequest(args[0] as PostRef | string, args[1] as VerbRequest["options"]);
    case "reply":
      return replyRequest(args[0] as PostRef, args[1] as string | WriteText, args[2] as LayerActionOptions | undefined);
    case "dm": {
      const [to, text, opts] = args as [string | UserRef | DmRef, string | WriteText, LayerActionOptions | undefined];
      return {
        target: dmTarget(to, text, opts),
        parts: dmParts(to, text, self, opts),
        write: textOf(text).write,
        options: opts,
      };
    }
    case "text": {
      const [text, opts] = args as [string, VerbRequest["options"]];
      return { target: shortHash(text), parts: { body: { ...opts?.body, text } }, options: opts };
    }
  }
}
