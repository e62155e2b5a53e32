import type { ActionFunctionArgs } from "@remix-run/node";
import prisma from "../db.server";
import { receiveShopRedact } from "../privacy/webhooks.server";

export const action = ({ request }: ActionFunctionArgs) => receiveShopRedact(prisma, request);
