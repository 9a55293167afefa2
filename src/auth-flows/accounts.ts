/**
 * Which stored account a `bot auth` command means, and which names an account may have: the
 * CLI's side of the stored accounts (../credentials/accounts.ts keeps them).
 */
import { UserError } from "../errors.ts";
import { ACCOUNTS_NAMESPACE, getAccount, type AccountRecord } from "../credentials/accounts.ts";
import type { AuthFlowContext } from "./context.ts";

/** Account names are safe to print and to use as keys: letters, digits, `-`, `_`, `.`. */
export const ACCOUNT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Refuses an `--account` name {@link ACCOUNT_NAME} does not allow, before the sign-in starts. */
export function checkAccountOption(name: string | undefined): void {
  if (name !== undefined && !ACCOUNT_NAME.test(name)) {
    throw new UserError(`--account ${JSON.stringify(name)}: use letters, digits, "-", "_" or "." (up to 64)`, {
      exitCode: 2,
    });
  }
}

/** The account a command means: the one named, or the only one stored. */
export function pickAccount(ctx: AuthFlowContext, name: string | undefined): AccountRecord {
  const all = ctx.store.entries<AccountRecord>(ACCOUNTS_NAMESPACE).map(([, a]) => a);
  if (name !== undefined) {
    const found = getAccount(ctx.store, name);
    if (!found) {
      const known = all.map((a) => a.name);
      throw new UserError(
        `no account named ${JSON.stringify(name)} in ${ctx.statePath}${known.length ? `; known: ${known.join(", ")}` : "; run bot auth login first"}`,
      );
    }
    return found;
  }
  if (all.length === 1) return all[0]!;
  if (all.length === 0) throw new UserError(`no accounts in ${ctx.statePath}; run bot auth login first`);
  throw new UserError(
    `several accounts are stored (${all.map((a) => a.name).join(", ")}); say which with --account NAME`,
    { exitCode: 2 },
  );
}
