/**
 * One log line per action: what it did, to what, and how it ended (the bot comes from the
 * child logger), and the same outcome to the observer.
 */
import type { Logger } from "../log.ts";
import type { Action, ActionKind, Outcome } from "./action.ts";
import type { ActionObserver } from "./observe.ts";

/**
 * How a log line names an action: what it does and to what, with the text it sends, shortened
 * unless `whole` (a dry run's line is all there is to see of what would have been sent).
 */
export function describeAction(
  action: Pick<Action, "kind" | "target" | "path" | "body" | "context">,
  whole = false,
): string {
  const text = (action.body as { text?: unknown } | undefined)?.text;
  const quoted = typeof text === "string" ? ` "${text.length > 60 && !whole ? `${text.slice(0, 57)}...` : text}"` : "";
  // Who or what the target is, for a person (`@ana: "any tips…"`), when the plugin's event said.
  const about = action.context?.about ? ` (${action.context.about})` : "";
  switch (action.kind) {
    case "reply":
      return `reply to post ${action.target}${quoted}`;
    case "post":
      return `post${quoted}`;
    case "dm":
      return `dm to user ${action.path.participant_id ?? action.target}${about}${quoted}`;
    case "follow":
    case "mute":
      return `${action.kind} user ${action.target}${about}`;
    case "hide":
      // `hidden: false` undoes a hide (its target is `ID:unhide`): the line says what was done.
      if ((action.body as { hidden?: unknown } | undefined)?.hidden === false)
        return `unhide post ${action.path.id ?? action.target}${about}`;
      return `hide post ${action.target}${about}`;
    case "like":
    case "repost":
      return `${action.kind} post ${action.target}${about}`;
    default:
      return `${action.kind} ${action.target}`;
  }
}

/**
 * The id of what a sent action made: the post of a reply or post, the message of a DM
 * (undefined for actions that make nothing, such as a like). Logged, so a person can answer
 * the bot's post (`bot say --reply-to ID`) from the log alone.
 */
export function madeId(kind: string, result: unknown): string | undefined {
  if (kind !== "reply" && kind !== "post" && kind !== "dm") return undefined;
  const data = (result as { data?: { id?: unknown; dm_event_id?: unknown } } | undefined)?.data;
  const id = kind === "dm" ? data?.dm_event_id : data?.id;
  return typeof id === "string" ? id : undefined;
}

/** Logs how an action ended and tells the observer. */
export function reportOutcome(log: Logger, observe: ActionObserver, action: Action, outcome: Outcome): void {
  const fields = {
    action: action.kind,
    target: action.target,
    status: outcome.status,
    ...(action.key ? { key: action.key } : {}),
  };
  const what = describeAction(action);
  switch (outcome.status) {
    case "sent": {
      const made = madeId(action.kind, outcome.result);
      if (made === undefined) log.info(fields, `${what}: sent`);
      else
        log.info({ ...fields, made_id: made }, `${what}: sent as ${action.kind === "dm" ? "message" : "post"} ${made}`);
      break;
    }
    case "dry-run":
      log.info({ ...fields, dry_run: true }, `${describeAction(action, true)}: dry run, not sent`);
      break;
    case "duplicate":
      log.debug(fields, `${what}: done already, not sent again`);
      break;
    case "refused":
    case "dropped":
    case "deferred":
      log.info({ ...fields, reason: outcome.reason }, `${what}: ${outcome.status}: ${outcome.reason}`);
      break;
    case "failed":
      log.warn(
        { ...fields, reason: outcome.reason, maybe_sent: outcome.maybeSent },
        `${what}: failed: ${outcome.reason}`,
      );
      break;
  }
  if (action.kind !== "read")
    observe({
      type: "outcome",
      bot: action.bot,
      kind: action.kind as ActionKind,
      endpoint: action.endpoint,
      action,
      outcome,
    });
}
