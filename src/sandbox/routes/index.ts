/**
 * Every endpoint handler of the sandbox, by endpoint key, and the admin handlers that act on
 * the world (users, posts). Each endpoint group's module adds its table here.
 */
import type { AdminRouteTable, RouteTable } from "../route.ts";

export const routes: RouteTable = {};

export const worldAdminRoutes: AdminRouteTable = {};
