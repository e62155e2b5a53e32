import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveShopRedact } from "../privacy/webhooks.server";

export const action = ({ request }: ActionFunctionArgs) => receiveShopRedact(request);
