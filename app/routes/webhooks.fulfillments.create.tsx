import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveSyncWebhook } from "../sync/webhook.server";

export const action = ({ request }: ActionFunctionArgs) => receiveSyncWebhook(request, "fulfillments/create");
