/**
 * What a process sharing its state keeps of a bot it does not run (./runtime.ts's slim
 * fleet): its outline ({@link FleetBot}), with the source its configuration is built again
 * from. With 100,000 bots over four processes each keeps 75,000 of them, and the bots of a
 * deployment mostly name one of a few apps and the same triggers: each outline kept its own
 * copy of them (its app's key as its file read it, the triggers' objects, ~250 bytes a bot),
 * so equal parts are kept once ({@link Outlines}).
 */
import type { BotOutline, FleetBot, HostedBot } from "./types.ts";

/** The outlines of one fleet, sharing their equal parts (read only: nothing changes an outline's parts in place). */
export class Outlines {
  /** Triggers by their JSON (plain data: the schema's durations are numbers). */
  private readonly triggers = new Map<string, BotOutline["triggers"]>();
  /** `app: {consumer_key}` by the key. */
  private readonly apps = new Map<string, NonNullable<BotOutline["app"]>>();

  /** The outline of `hosted`; the bot itself when it has no source to be built again from (made by hand: kept whole). */
  of(hosted: HostedBot): FleetBot {
    const { config, app, origin, source } = hosted;
    if (source === undefined) return hosted;
    const { name, file, plan } = config;
    const key = config.app?.consumer_key;
    return {
      config: { name, file, plan, triggers: this.shared(config.triggers), ...(key ? { app: this.app(key) } : {}) },
      app,
      ...(origin !== undefined ? { origin } : {}),
      source,
    };
  }

  /**
   * Triggers equal to another outline's are that one's. Only those without stream rules or
   * schedules: the few ways mentions, followers and DMs are set (a bot's own rules would make
   * a table as large as the fleet).
   */
  private shared(triggers: BotOutline["triggers"]): BotOutline["triggers"] {
    if (triggers.stream.length > 0 || triggers.schedule.length > 0) return triggers;
    const key = JSON.stringify(triggers);
    const kept = this.triggers.get(key);
    if (kept) return kept;
    this.triggers.set(key, triggers);
    return triggers;
  }

  private app(key: string): NonNullable<BotOutline["app"]> {
    let kept = this.apps.get(key);
    if (!kept) {
      kept = { consumer_key: key };
      this.apps.set(key, kept);
    }
    return kept;
  }
}
