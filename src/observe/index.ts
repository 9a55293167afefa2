/**
 * Observability of a running postbot (`bot start --http`): Prometheus metrics, health and
 * readiness, and a live status page, fed by a {@link RuntimeObserver} and status snapshots.
 */
export { Activity, type Change } from "./activity.ts";
export { streamStates, type StreamState } from "./stream-state.ts";
export { tapActions } from "../hosting/action-tap.ts";
export { readiness, type Phase, type Readiness } from "./health.ts";
export { DEFAULT_HTTP_ADDRESS, isLoopback, parseHttpAddress, type HttpAddress } from "./http-address.ts";
export { createMetrics, type Metrics } from "./metrics.ts";
export {
  fanOut,
  type ActionSeen,
  type EventSeen,
  type FleetChange,
  type PauseSeen,
  type ResponseSeen,
  type RuntimeObserver,
  type ServiceErrorSeen,
  type StreamSeen,
  type WaitSeen,
} from "../hosting/observer.ts";
export { startObserveServer, type ObserveServer, type ObserveServerOptions } from "./server.ts";
export { AdminApi, adminAccess, type AdminAccess, type FleetControl } from "./admin-api.ts";
export { runtimeSource, type StatusSource } from "./source.ts";
export { statusView, type StatusView, type ViewQuery } from "./status-view.ts";
