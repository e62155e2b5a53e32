import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveAppUninstalled } from "../privacy/webhooks.server";

export const action = ({ request }: ActionFunctionArgs) => receiveAppUninstalled(request);
