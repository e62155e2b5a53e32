import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveScopesUpdate } from "../privacy/webhooks.server";

export const action = ({ request }: ActionFunctionArgs) => receiveScopesUpdate(request);
