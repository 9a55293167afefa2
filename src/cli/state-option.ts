/**
 * Where `bot start` and `bot status` find a state shared in Redis: `--state URL`, else the
 * `POSTBOT_STATE` variable; neither means the state directory (`--data`).
 */
import { UserError } from "../errors.ts";
import { isRedisUrl, parseRedisUrl, redactRedisUrl } from "../redis/url.ts";

/** The Redis URL and the setting it came from (for messages), or `undefined` for the state directory. */
export function stateOption(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): { url: string; source: string } | undefined {
  const source = flag !== undefined ? "--state" : env.POSTBOT_STATE?.trim() ? "POSTBOT_STATE" : undefined;
  if (!source) return undefined;
  const url = (flag ?? env.POSTBOT_STATE ?? "").trim();
  if (!isRedisUrl(url)) {
    throw new UserError(
      `${source} "${redactRedisUrl(url)}": give a Redis URL, redis://HOST:PORT/DB (e.g. redis://127.0.0.1:6379/0) or, for a Redis on this machine, its unix socket: unix:///PATH/TO/redis.sock?db=DB; for a state directory use --data DIR`,
      { exitCode: 2 },
    );
  }
  parseRedisUrl(url, source);
  return { url, source };
}
