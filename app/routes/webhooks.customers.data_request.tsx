import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveDataRequest } from "../privacy/webhooks.server";

export const action = ({ request }: ActionFunctionArgs) => receiveDataRequest(request);
