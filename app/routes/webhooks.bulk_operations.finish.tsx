import type { ActionFunctionArgs } from "@remix-run/node";
import prisma from "../db.server";
import { receiveBulkFinish } from "../sync/bulk-finish.server";

export const action = ({ request }: ActionFunctionArgs) => receiveBulkFinish(prisma, request);
