// In-memory data: handoffs, imported orders and shipments, and the request log. Lookups are Map gets keyed by
// id or by (workspace, external id), so 100,000 stored imports cost nothing on the hot path.
import type { CartHandoffRequest, OrderRequest, ShipmentRequest } from "../app/service/schemas";

export interface Handoff {
  handoff_id: string;
  client_id: string;
  claim_url: string;
  created_at: string;
  expires_at: string;
  claimed_workspace_id: string | null;
  claimed_at: string | null;
  body: CartHandoffRequest;
}

export interface ImportedRecord<B> {
  id: string;
  workspace_id: string;
  client_id: string;
  external_id: string;
  status: "imported" | "updated";
  created_at: string;
  updated_at: string;
  /** The request body as received, of the latest import. */
  body: B;
}

export type StoredOrder = ImportedRecord<OrderRequest>;
export type StoredShipment = ImportedRecord<ShipmentRequest>;

export interface LoggedRequest {
  at: string;
  method: string;
  path: string;
  status: number;
  error: string | null;
  idempotency_key: string | null;
  replayed: boolean;
  external_id: string | null;
  workspace_id: string | null;
}

const key = (workspaceId: string, externalId: string) => `${workspaceId}\u0000${externalId}`;

export class Store {
  readonly handoffs = new Map<string, Handoff>();
  private readonly orders = new Map<string, StoredOrder>();
  /** external_line_id values of each order's latest import, for the shipment line check (same keys as orders). */
  private readonly orderLines = new Map<string, Set<string>>();
  private readonly shipments = new Map<string, StoredShipment>();
  readonly requests: LoggedRequest[] = [];

  findOrder(workspaceId: string, externalOrderId: string): StoredOrder | undefined {
    return this.orders.get(key(workspaceId, externalOrderId));
  }

  findShipment(workspaceId: string, externalShipmentId: string): StoredShipment | undefined {
    return this.shipments.get(key(workspaceId, externalShipmentId));
  }

  saveOrder(order: StoredOrder): void {
    const k = key(order.workspace_id, order.external_id);
    this.orders.set(k, order);
    this.orderLines.set(k, new Set(order.body.lines.map((l) => l.external_line_id)));
  }

  /** Whether the order's latest import has this line. */
  orderHasLine(order: StoredOrder, externalLineId: string): boolean {
    return this.orderLines.get(key(order.workspace_id, order.external_id))?.has(externalLineId) ?? false;
  }

  saveShipment(shipment: StoredShipment): void {
    this.shipments.set(key(shipment.workspace_id, shipment.external_id), shipment);
  }

  get orderCount(): number {
    return this.orders.size;
  }

  clear(): void {
    this.handoffs.clear();
    this.orders.clear();
    this.orderLines.clear();
    this.shipments.clear();
    this.requests.length = 0;
  }

  /** Everything stored, for GET /_emulator/state (docs/service.md, "The emulator"). */
  snapshot() {
    return {
      handoffs: [...this.handoffs.values()],
      orders: [...this.orders.values()],
      shipments: [...this.shipments.values()],
      requests: this.requests,
    };
  }
}
