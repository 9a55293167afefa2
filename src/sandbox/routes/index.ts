/**
 * Every endpoint handler of the sandbox, by endpoint key, and the admin handlers that act on
 * the world (users, posts). Each endpoint group's module adds its table here.
 */
import type { AdminRouteTable, RouteTable } from "../route.ts";
import { worldAdminRoutes as adminTable } from "./admin.ts";
import { dmRoutes } from "./dms.ts";
import { engagementRoutes } from "./engagement.ts";
import { postRoutes } from "./posts.ts";
import { searchRoutes } from "./search.ts";
import { streamRoutes } from "./streams.ts";
import { timelineRoutes } from "./timelines.ts";
import { userRoutes } from "./users.ts";

/** Every v2 handler, by endpoint key; the platform looks requests up here. */
export const routes: RouteTable = {
  ...postRoutes,
  ...timelineRoutes,
  ...searchRoutes,
  ...streamRoutes,
  ...engagementRoutes,
  ...userRoutes,
  ...dmRoutes,
};

/** The admin routes that act on the world (users, posts, relations). */
export const worldAdminRoutes: AdminRouteTable = { ...adminTable };
