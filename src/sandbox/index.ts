/**
 * The sandbox: a faithful emulator of the Social Posting Service, in-process or as
 * `bot sandbox`. Start here: {@link createSandbox}.
 */
export { createSandbox, type Sandbox, type SandboxOptions } from "./server.ts";
export {
  SandboxAdminError,
  type SandboxAdmin,
  type NewAppInput,
  type AppChangesInput,
  type NewUserInput,
  type NewPostInput,
  type FaultInput,
} from "./admin/in-process.ts";
export type { AppView } from "./admin/routes.ts";
export type { IssuedAccessToken } from "./auth/credentials.ts";
export { DEFAULT_PASSWORD } from "./auth/state.ts";
export type { Fault, FaultSpec } from "./faults.ts";
export type { Stats } from "./meter/stats.ts";
export type { SandboxContext, Caller } from "./route.ts";
