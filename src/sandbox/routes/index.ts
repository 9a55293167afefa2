/**
 * Every endpoint handler of the sandbox, by endpoint key, and the admin handlers that act on
 * the world (users, posts, spaces, communities, bookmark folders). Each endpoint group's
 * module adds its table here.
 */
import type { AdminRouteTable, RouteTable } from "../route.ts";
import { worldAdminRoutes as adminTable } from "./admin.ts";
import { bookmarkFolderAdminRoutes, bookmarkRoutes } from "./bookmarks.ts";
import { communityAdminRoutes, communityRoutes } from "./communities.ts";
import { complianceRoutes } from "./compliance.ts";
import { dmRoutes } from "./dms.ts";
import { engagementRoutes } from "./engagement.ts";
import { listRoutes } from "./lists.ts";
import { postRoutes } from "./posts.ts";
import { searchRoutes } from "./search.ts";
import { spaceAdminRoutes, spaceRoutes } from "./spaces.ts";
import { streamRoutes } from "./streams.ts";
import { timelineRoutes } from "./timelines.ts";
import { trendRoutes } from "./trends.ts";
import { usageRoutes } from "./usage.ts";
import { userRoutes } from "./users.ts";

/** Every v2 handler, by endpoint key; the platform looks requests up here. */
export const routes: RouteTable = {
  ...postRoutes,
  ...timelineRoutes,
  ...searchRoutes,
  ...streamRoutes,
  ...engagementRoutes,
  ...bookmarkRoutes,
  ...userRoutes,
  ...dmRoutes,
  ...listRoutes,
  ...spaceRoutes,
  ...trendRoutes,
  ...communityRoutes,
  ...usageRoutes,
  ...complianceRoutes,
};

/** The admin routes that act on the world (users, posts, relations, spaces, communities, bookmark folders). */
export const worldAdminRoutes: AdminRouteTable = {
  ...adminTable,
  ...spaceAdminRoutes,
  ...communityAdminRoutes,
  ...bookmarkFolderAdminRoutes,
};
