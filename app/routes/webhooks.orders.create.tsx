import type { ActionFunctionArgs } from "@remix-run/node";
import { syncIntake } from "../runtime/web.server";

export const action = ({ request }: ActionFunctionArgs) => syncIntake().receive(request, "orders/create");
