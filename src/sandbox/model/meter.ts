/** What the sandbox counts: rate-limit windows, posts read against the monthly cap, stats. */
export interface MeterData {
  /** Sliding-window event times per limit key (`<endpoint>|<scope>:<id>|<per>`). */
  windows: Record<string, number[]>;
  /** Posts delivered through capped endpoints, per app, per UTC day (`YYYY-MM-DD`). */
  posts_read: Record<string, Record<string, number>>;
  /** Requests by `"METHOD /path/template"` and status: what `GET /_sandbox/stats` answers. */
  stats: Record<string, Record<string, number>>;
}

export const createMeterData = (): MeterData => ({ windows: {}, posts_read: {}, stats: {} });
