import type { ActionFunctionArgs } from "@remix-run/node";
import prisma from "../db.server";
import { receiveDataRequest } from "../privacy/webhooks.server";

export const action = ({ request }: ActionFunctionArgs) => receiveDataRequest(prisma, request);
