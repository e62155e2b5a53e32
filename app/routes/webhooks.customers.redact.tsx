import type { ActionFunctionArgs } from "@remix-run/node";
import { receiveCustomersRedact } from "../privacy/webhooks.server";

export const action = ({ request }: ActionFunctionArgs) => receiveCustomersRedact(request);
