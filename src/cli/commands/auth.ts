/**
 * `bot auth`: sign the bots' accounts in and out. Tokens go to the state store
 * (`--data DIR/state/credentials.json`, mode 0600, or the Redis of `--state`/`POSTBOT_STATE`,
 * where `bot start --state` reads them), never to the terminal or a log. The service and the
 * app come from POSTBOT_BASE_URL, POSTBOT_CONSUMER_KEY and POSTBOT_CONSUMER_SECRET (the
 * environment or a .env file); PKCE also needs POSTBOT_CLIENT_ID.
 */
import type { Command } from "commander";
import type { AuthFlowContext } from "../../auth-flows/context.ts";

interface Common {
  data: string;
  state?: string;
}

/** The flows, loaded only when a subcommand runs (so `bot --help` stays fast). */
type Flows = typeof import("../../auth-flows/index.ts");

/**
 * Opens the store (the state directory, or Redis with `--state`/`POSTBOT_STATE`, where the
 * processes of `bot start --state` read the accounts) and the terminal, runs one flow, and
 * always closes the store.
 */
async function withContext(
  options: Common,
  run: (ctx: AuthFlowContext, flows: Flows) => Promise<unknown> | void,
  readOnly = false,
): Promise<void> {
  const [{ openFileStore, credentialsPath }, flows, { systemClock }, { stateOption }] = await Promise.all([
    import("../../store/index.ts"),
    import("../../auth-flows/index.ts"),
    import("../../clock.ts"),
    import("../state-option.ts"),
  ]);
  const { vars, file } = flows.settingsEnv();
  const shared = stateOption(options.state, process.env);
  let store, statePath;
  if (shared) {
    const [{ connectRedis, parseRedisUrl }, { openRedisStore }, { redisKeys }, { shardHash }] = await Promise.all([
      import("../../redis/connect.ts"),
      import("../../redis/store.ts"),
      import("../../redis/keys.ts"),
      import("../../redis/store-sharding.ts"),
    ]);
    const redis = await connectRedis(shared.url, { source: shared.source, name: "postbot:auth" });
    store = await openRedisStore({ redis, readOnly, loadBots: false }).catch((err: unknown) => {
      redis.disconnect();
      throw err;
    });
    statePath = `Redis at ${parseRedisUrl(shared.url).display} (${shardHash(redisKeys(redis), "credentials.json")})`;
  } else {
    store = await openFileStore(options.data, { readOnly });
    statePath = credentialsPath(options.data);
  }
  try {
    await run({ store, terminal: flows.streamTerminal(), vars, envFile: file, clock: systemClock, statePath }, flows);
  } finally {
    await store.close();
  }
}

/** Errors of the service (a refused PIN, a 401) are for the user to act on, not bugs. */
async function userFacing<T>(fn: () => Promise<T>): Promise<T> {
  const [{ ApiError }, { UserError }] = await Promise.all([import("../../api/errors.ts"), import("../../errors.ts")]);
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError) throw new UserError(err.message, { cause: err });
    throw err;
  }
}

const ENV_HELP = `
The service and the app are read from POSTBOT_BASE_URL, POSTBOT_CONSUMER_KEY and
POSTBOT_CONSUMER_SECRET (the environment, then .env). Tokens are stored in
DIR/state/credentials.json (mode 0600), or in Redis with --state redis://HOST:PORT/DB
(or POSTBOT_STATE), and never printed.`;

export default function register(program: Command): void {
  const auth = program
    .command("auth")
    .description("sign accounts in and out (OAuth 1.0a, PKCE, the app's bearer token)")
    .addHelpText("after", ENV_HELP);
  const data = (c: Command) =>
    c
      .option("--data <dir>", "directory of the state store", ".postbot")
      .option(
        "--state <url>",
        "keep the tokens in Redis (redis://HOST:PORT/DB, unix:///PATH/TO/redis.sock?db=DB, or a Redis Cluster: redis+cluster://HOST:PORT,HOST:PORT,...), where `bot start --state` reads them (default: POSTBOT_STATE, else the --data directory)",
      );

  data(
    auth
      .command("login")
      .description("sign an account in with the 3-legged OAuth 1.0a flow: open the printed page, approve, type the PIN")
      .option("--account <name>", "name to store the account under (default: its screen name)")
      .option("--callback <url|oob>", 'callback URL registered on the app, or "oob" for a PIN', "oob"),
  ).action((o: Common & { account?: string; callback: string }) =>
    userFacing(() =>
      withContext(o, (ctx, flows) =>
        flows.login(ctx, { ...(o.account ? { account: o.account } : {}), callback: o.callback }),
      ),
    ),
  );

  data(
    auth
      .command("pkce")
      .description(
        "sign an account in with OAuth 2.0 PKCE (needs POSTBOT_CLIENT_ID): open the printed page, approve, paste the address you land on",
      )
      .requiredOption("--redirect <uri>", "redirect URI registered on the app")
      .option("--account <name>", "name to store the account under (default: its username)")
      .option("--scopes <scopes>", "space-separated scopes (default: all, with offline.access for refreshing)"),
  ).action((o: Common & { account?: string; redirect: string; scopes?: string }) =>
    userFacing(() =>
      withContext(o, (ctx, flows) =>
        flows.pkceLogin(ctx, {
          redirect: o.redirect,
          ...(o.account ? { account: o.account } : {}),
          ...(o.scopes ? { scopes: o.scopes.split(/[\s,]+/).filter(Boolean) } : {}),
        }),
      ),
    ),
  );

  data(
    auth
      .command("bearer")
      .description("get the app's app-only bearer token once and store it; --invalidate revokes it")
      .option("--invalidate", "invalidate the stored token (signed by the app owner's account)")
      .option("--account <name>", "the app owner's account, for --invalidate"),
  ).action((o: Common & { invalidate?: boolean; account?: string }) =>
    userFacing(() =>
      withContext(o, (ctx, flows) =>
        flows.bearer(ctx, { invalidate: o.invalidate ?? false, ...(o.account ? { account: o.account } : {}) }),
      ),
    ),
  );

  data(
    auth
      .command("logout")
      .description("invalidate an account's tokens on the service and forget them")
      .option("--account <name>", "the account (default: the only one stored)")
      .option("--local-only", "forget the tokens without telling the service"),
  ).action((o: Common & { account?: string; localOnly?: boolean }) =>
    userFacing(() =>
      withContext(o, (ctx, flows) =>
        flows.logout(ctx, { ...(o.account ? { account: o.account } : {}), localOnly: o.localOnly ?? false }),
      ),
    ),
  );

  data(auth.command("list").description("list the stored accounts (never their secrets)")).action((o: Common) =>
    withContext(o, (ctx, flows) => flows.list(ctx), true),
  );
}
