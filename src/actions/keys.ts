/**
 * The idempotency keys of the actions whose targets are not a plain id, and the keys the same
 * actions were filed under before postbot 0.2, which the ledger still recognises.
 *
 * Every direct message is a `dm` action keyed `<bot>:dm:<target>`, one scheme whatever asked
 * for it:
 *
 * | the message | target |
 * |---|---|
 * | the answer to a message (`ctx.reply` on a `dm` event) | `re:<message id>`: one answer per message |
 * | a dialog's turn (src/plugins/dialogs) | `dialog:<dialog id>:<turn>` |
 * | `ctx.dm(text)` to a user | `<user id>:<hash of the text>`: the same text to the same user once |
 * | any verb given `{ key }` | that key |
 *
 * A dialog's turn in a thread is a reply keyed `<bot>:reply:dialog:<dialog id>:<turn>`.
 *
 * Before 0.2 an answer to a message was `<bot>:dm-reply:<message id>` and a dialog's turn
 * `<bot>:dm:conv:<id>:<turn>` (`<bot>:reply:conv:...` in a thread). A ledger written then is
 * read by the ledger step (./steps/ledger.ts) under {@link formerKeys}: an action recorded
 * under its old key is a `duplicate` once done, and resumed under that key while unfinished,
 * so an upgrade never sends it twice.
 */

/** The target of the answer to direct message `messageId`. */
export const dmAnswerTarget = (messageId: string) => `re:${messageId}`;

/** The target of a dialog's message: its id and the turn's number. */
export const dialogTarget = (dialogId: string, turn: number) => `dialog:${dialogId}:${turn}`;

/** `<bot>:<kind>:<new target prefix>` → how the same key began before 0.2. */
const RENAMED: ReadonlyArray<{ now: RegExp; was: string }> = [
  { now: /^([^:]+):dm:re:/, was: "$1:dm-reply:" },
  { now: /^([^:]+):(dm|reply):dialog:/, was: "$1:$2:conv:" },
];

/** The keys an action keyed `key` had before 0.2 (none for most). */
export function formerKeys(key: string): string[] {
  const out: string[] = [];
  for (const { now, was } of RENAMED) if (now.test(key)) out.push(key.replace(now, was));
  return out;
}
