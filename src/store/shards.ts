/**
 * Which file of the state directory each value lives in: the file store writes, on a flush,
 * only the files whose values changed, so the cost of a durable write is the size of one
 * bot's (or one app's) state, not of every bot's.
 *
 * The rule is a pure function of the namespace and the key, so the callers need not say
 * which bot a value belongs to: the key formats of postbot's own namespaces already do. A
 * value the table does not know goes to `shared.json`, which is always correct, only larger.
 * The layout is never a matter of correctness: the store reads every file and puts a value
 * found in the "wrong" file back where the rule says on its next write.
 *
 * | namespace | key | file |
 * |---|---|---|
 * | `kv:<bot>`, `inbox:<bot>`, `hidden:<bot>`, `texts:<bot>`, `session:<bot>`, `conv:<bot>`, `dialog.versions:<bot>`, `review:<bot>` | any | `bots/<bot>.json` |
 * | `ledger`, `cursors`, `replies.recent` | `<bot>:...` | `bots/<bot>.json` |
 * | `identity`, `kept` | `<bot>` | `bots/<bot>.json` |
 * | `budget.windows`, `budget.pauses` | `...\|u:<user id>...` | `accounts/<user id>.json` |
 * | `budget.windows`, `budget.pauses` | `...\|a:<app id>...` | `apps/<app id>.json` |
 * | `budget.windows` | `cap\|<bot>\|...` | `bots/<bot>.json` |
 * | `budget.usage`, `stream.marks` | `<app id>` | `apps/<app id>.json` |
 * | `status` | `<bot>` | `status.json` (a bot's when it changed, each status saver's round every few seconds) |
 * | `status.apps`, `status.rounds` | `<app id>`, a status saver's id | `status.json` |
 * | `auth:*`, `credentials` | any | `credentials.json` |
 * | `moderation.labels` | any | `moderation-labels.json` (an operator's labelled replies) |
 * | `moderation.model` | any | `moderation-model.json` (the abuse model they taught) |
 * | anything else | | `shared.json` |
 *
 * A trigger's inbox (`inbox:<bot>`) and its cursor (`cursors`, `<bot>:mentions`) share the
 * bot's file, so "add the events and move the cursor in one write" stays one atomic write.
 * A bot's sessions (`session:<bot>`) and open dialogs (`conv:<bot>`) share the file of
 * its ledger too: a handler's session change and a conversation's step go in the same atomic
 * write as the `pending` mark of the action they ride with (src/plugins/dialogs/durable-scope.ts);
 * so do the versions open dialogs started on (`dialog.versions:<bot>`, src/plugins/dialogs/versions.ts).
 * `credentials.json` holds the secrets, and is the one file never journaled: the file store
 * writes it whole at the flush of a change to it (file-store.ts).
 */

import { LABELS_NAMESPACE, MODEL_NAMESPACE } from "../moderation/training/namespaces.ts";

/** A file of the state directory, relative to it (`bots/greeter.json`): where a value lives. */
export type ShardPath = string;

/** Which file a value lives in, from its namespace and key alone. */
export type ShardRule = (namespace: string, key: string) => ShardPath;

export const SHARED_SHARD = "shared.json";
export const CREDENTIALS_SHARD = "credentials.json";
export const STATUS_SHARD = "status.json";
/**
 * The operator's labelled replies and the model taught by them: each a file of its own, large
 * (a model is about 1 MB) and seldom changed, so that neither is rewritten with the rest.
 */
export const LABELS_SHARD = "moderation-labels.json";
export const MODEL_SHARD = "moderation-model.json";

/** The folders of per-owner files, in the state directory. */
export const SHARD_FOLDERS = ["bots", "accounts", "apps"] as const;

const SAFE_NAME = /^[A-Za-z0-9_-]*$/;

/**
 * A name made safe as a file name: letters, digits, `-` and `_` stay (every bot name
 * does), anything else becomes `~` and its UTF-8 bytes in hex, so two names never share a
 * file and none can climb out of its folder (`..`, `/`).
 */
export function fileNameOf(name: string): string {
  if (SAFE_NAME.test(name)) return name; // every bot name: the rule runs on every write
  let out = "";
  for (const ch of name) {
    if (/[A-Za-z0-9_-]/.test(ch)) out += ch;
    else for (const byte of Buffer.from(ch, "utf8")) out += `~${byte.toString(16).padStart(2, "0")}`;
  }
  return out;
}

/** The longest owner name given a file of its own; longer ones (never a bot name) share. */
const MAX_NAME = 120;

const owned = (folder: (typeof SHARD_FOLDERS)[number], name: string | undefined): ShardPath => {
  if (!name) return SHARED_SHARD;
  const file = fileNameOf(name);
  return file.length === 0 || file.length > MAX_NAME ? SHARED_SHARD : `${folder}/${file}.json`;
};

/** The file of a bot's own values (its ledger, inbox, cursors, kv...): `bots/<bot>.json`. */
export const botShard = (bot: string): ShardPath => owned("bots", bot);

/** `<bot>:rest` → the bot; a key without a colon has no owner. */
const beforeColon = (key: string): string | undefined => {
  const i = key.indexOf(":");
  return i > 0 ? key.slice(0, i) : undefined;
};

/** A budget key's owner: `<endpoint>|u:<id>|<per>`, `<endpoint>|a:<id>`, `cap|<bot>|<action>|<per>`. */
function budgetShard(key: string): ShardPath {
  const parts = key.split("|");
  if (parts[0] === "cap") return owned("bots", parts[1]);
  for (const part of parts) {
    if (part.startsWith("u:")) return owned("accounts", part.slice(2));
    if (part.startsWith("a:")) return owned("apps", part.slice(2));
  }
  return SHARED_SHARD;
}

/** postbot's layout: see the module comment for the table. */
export const defaultShardRule: ShardRule = (namespace, key) => {
  const colon = namespace.indexOf(":");
  const prefix = colon > 0 ? namespace.slice(0, colon) : namespace;
  switch (prefix) {
    case "kv":
    case "inbox":
    case "hidden":
    case "texts":
    case "session":
    case "conv":
    case "dialog.versions":
    case "review":
      return colon > 0 ? owned("bots", namespace.slice(colon + 1)) : SHARED_SHARD;
    case "ledger":
    case "cursors":
    case "replies.recent":
      return owned("bots", beforeColon(key));
    case "identity":
    case "kept":
      return owned("bots", key);
    case "budget.windows":
    case "budget.pauses":
      return budgetShard(key);
    case "budget.usage":
    case "stream.marks":
      return owned("apps", key);
    case "status":
    case "status.apps":
    case "status.rounds":
      return STATUS_SHARD;
    case "auth":
    case "credentials":
      return CREDENTIALS_SHARD;
    case LABELS_NAMESPACE:
      return LABELS_SHARD;
    case MODEL_NAMESPACE:
      return MODEL_SHARD;
    default:
      return SHARED_SHARD;
  }
};
