/** `bot auth list`: the stored accounts, without secrets. */
import { APP_TOKENS_NAMESPACE, listAccounts } from "../credentials/accounts.ts";
import type { AuthFlowContext } from "./context.ts";

export function list(ctx: AuthFlowContext): void {
  const accounts = listAccounts(ctx.store);
  if (accounts.length === 0) ctx.terminal.print(`No accounts in ${ctx.statePath}; add one with bot auth login.`);
  else {
    const rows = accounts.map((a) => [
      a.name,
      `@${a.username}`,
      a.user_id,
      a.methods.join("+"),
      a.pkce_expires_at ? `pkce until ${a.pkce_expires_at}` : "",
      a.base_url,
    ]);
    const header = ["ACCOUNT", "USER", "ID", "AUTH", "EXPIRES", "SERVICE"];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    for (const row of [header, ...rows])
      ctx.terminal.print(
        row
          .map((c, i) => c.padEnd(widths[i]!))
          .join("  ")
          .trimEnd(),
      );
  }
  const apps = ctx.store.entries(APP_TOKENS_NAMESPACE).length;
  if (apps > 0) ctx.terminal.print(`${apps} app bearer token${apps === 1 ? "" : "s"} stored.`);
}
