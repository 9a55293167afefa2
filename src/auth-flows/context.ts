/** What every `bot auth` flow works with: the state store, the terminal, the settings' variables, a clock. */
import type { Clock } from "../clock.ts";
import type { Store } from "../store/store.ts";
import type { Terminal } from "./terminal.ts";

export interface AuthFlowContext {
  store: Store;
  terminal: Terminal;
  /** The variables settings are read from (environment and `.env`). */
  vars: Readonly<Record<string, string | undefined>>;
  /** The `.env` file to suggest when a variable is missing. */
  envFile: string;
  clock: Clock;
  /** Where the state store lives (for messages). */
  statePath: string;
}
