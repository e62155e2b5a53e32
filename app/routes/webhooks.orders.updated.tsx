import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveSyncWebhook } from "../webhooks.server";

export const action = ({ request }: ActionFunctionArgs) => receiveSyncWebhook(request);
