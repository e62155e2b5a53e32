// Shopify Flow's side of the Admin API: `flowTriggerReceive` (FlowTriggerReceive, the app's only operation on it),
// answered like Shopify (userErrors for an unknown handle or a payload that is not an object), each accepted call
// handed to `record`. The demo appends them to a file its admin stand-in shows (dev/admin/order-page.ts).
import { HttpResponse } from "msw";
import { adminGraphqlLink } from "./orders";

export interface FlowTriggerCall {
  at: string;
  shop: string;
  handle: string;
  payload: Record<string, unknown>;
}

/** The triggers the app declares (extensions/*\/shopify.extension.toml, type flow_trigger). */
export const FLOW_TRIGGER_HANDLES = ["order-import-needs-attention"];

export function flowHandlers(record: (call: FlowTriggerCall) => void = () => {}) {
  return [
    adminGraphqlLink.mutation("FlowTriggerReceive", ({ variables, request }) => {
      const handle = String(variables.handle ?? "");
      const payload = variables.payload;
      if (!FLOW_TRIGGER_HANDLES.includes(handle)) {
        return HttpResponse.json({
          data: { flowTriggerReceive: { userErrors: [{ field: ["handle"], message: "Invalid handle" }] } },
        });
      }
      if (!payload || typeof payload !== "object" || Array.isArray(payload)) {
        return HttpResponse.json({
          data: { flowTriggerReceive: { userErrors: [{ field: ["payload"], message: "Invalid payload" }] } },
        });
      }
      record({
        at: new Date().toISOString(),
        shop: new URL(request.url).hostname,
        handle,
        payload: payload as Record<string, unknown>,
      });
      return HttpResponse.json({ data: { flowTriggerReceive: { userErrors: [] } } });
    }),
  ];
}
