/**
 * The whole state of a sandbox, as one JSON-serializable value: `bot sandbox --state FILE`
 * saves it on exit and loads it on start. Each slice belongs to one layer: `auth` to the
 * authentication layer, `world` to the endpoint handlers, `meter` to limits and stats.
 */
import { createAuthData, type AuthData } from "./auth.ts";
import { createMeterData, type MeterData } from "./meter.ts";
import { createWorldData, type WorldData } from "./world.ts";

export type * from "./auth.ts";
export type * from "./meter.ts";
export type * from "./world.ts";

export interface SandboxData {
  version: 1;
  /** The last id handed out (see {@link nextId}). */
  lastId: string;
  auth: AuthData;
  world: WorldData;
  meter: MeterData;
}

export const createData = (): SandboxData => ({
  version: 1,
  lastId: "0",
  auth: createAuthData(),
  world: createWorldData(),
  meter: createMeterData(),
});

/** Ids count from this instant (the real service's epoch), as snowflake ids do. */
const EPOCH = 1288834974657n;

/**
 * A new decimal id that is larger than every id made before it and grows with the sandbox
 * clock (a snowflake: milliseconds since the epoch, shifted 22 bits), so `since_id` and
 * `until_id` order and time order agree, as on the real service.
 */
export function nextId(data: SandboxData, now: number): string {
  const fromTime = (BigInt(Math.max(0, Math.floor(now))) - EPOCH) << 22n;
  const afterLast = BigInt(data.lastId) + 1n;
  const id = fromTime > afterLast ? fromTime : afterLast;
  data.lastId = id.toString();
  return data.lastId;
}

/** Ids are compared as the client compares them: one definition, in the API layer. */
export { compareIds } from "../../api/ids.ts";
