// The route list (Remix's v3_routeConfig, React Router 7's app/routes.ts): the same file-system routes as before,
// so route files keep Shopify's template names.
import { flatRoutes } from "@remix-run/fs-routes";
import type { RouteConfig } from "@remix-run/route-config";

export default flatRoutes({ ignoredRouteFiles: ["**/.*", "**/*.test.{ts,tsx}"] }) satisfies RouteConfig;
