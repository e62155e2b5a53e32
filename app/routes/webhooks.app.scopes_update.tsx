import type { ActionFunctionArgs } from "@remix-run/node";
import prisma from "../db.server";
import { receiveScopesUpdate } from "../privacy/webhooks.server";

export const action = ({ request }: ActionFunctionArgs) => receiveScopesUpdate(prisma, request);
