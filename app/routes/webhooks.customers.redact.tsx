import type { ActionFunctionArgs } from "@remix-run/node";
import prisma from "../db.server";
import { receiveCustomersRedact } from "../privacy/webhooks.server";

export const action = ({ request }: ActionFunctionArgs) => receiveCustomersRedact(prisma, request);
