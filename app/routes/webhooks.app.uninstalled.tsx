import type { ActionFunctionArgs } from "@remix-run/node";
import prisma from "../db.server";
import { receiveAppUninstalled } from "../privacy/webhooks.server";

export const action = ({ request }: ActionFunctionArgs) => receiveAppUninstalled(prisma, request);
