/** What the sandbox counts: rate-limit windows, posts read against the monthly cap, stats. */
export interface MeterData {
  /** Sliding-window event times per limit key (`<endpoint>|<scope>:<id>|<per>`). */
  windows: Record<string, number[]>;
  /** Posts delivered through capped endpoints, per app, per UTC day (`YYYY-MM-DD`). */
  posts_read: Record<string, Record<string, number>>;
  /** Requests by `"METHOD /path/template"` and status: what `GET /_sandbox/stats` answers. */
  stats: Record<string, Record<string, number>>;
  /**
   * Answers the chat-completions stand-in has given so far: each answer is numbered by it, so
   * none repeats an earlier one (absent in a state file older than the count: none yet).
   */
  stand_in_answers?: number;
}

export const createMeterData = (): MeterData => ({ windows: {}, posts_read: {}, stats: {}, stand_in_answers: 0 });
