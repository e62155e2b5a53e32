// The sync log's filters, as they travel in the URL (so a view can be shared), and the keyset cursor. Everything
// from the URL is hostile: unknown values are dropped, sizes are bounded, a malformed cursor means the first page.
import type { Prisma } from "@prisma/client";
import { LOG_KINDS, LOG_STATES, type LogKind, type LogState } from "./log-terms";

export { LOG_KINDS, LOG_STATES, type LogKind, type LogState };

export interface LogFilter {
  kind?: LogKind;
  state?: LogState;
  /** Inclusive UTC days, YYYY-MM-DD. */
  from?: string;
  to?: string;
  /** A Shopify customer id. */
  customer?: string;
  /** An order name ("#1001") or number ("1001"), or a Shopify order id. */
  q?: string;
  sort: "desc" | "asc";
}

export interface Cursor {
  at: Date;
  id: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const oneOf = <T extends string>(values: readonly T[], value: string | null): T | undefined =>
  value !== null && (values as readonly string[]).includes(value) ? (value as T) : undefined;
const day = (value: string | null) =>
  value && DAY.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ? value : undefined;
const bounded = (value: string | null, max: number) => {
  const v = value?.trim();
  return v && v.length <= max ? v : undefined;
};

export function parseLogFilter(params: URLSearchParams): LogFilter {
  const customer = bounded(params.get("customer"), 40);
  return {
    kind: oneOf(LOG_KINDS, params.get("kind")),
    state: oneOf(LOG_STATES, params.get("state")),
    from: day(params.get("from")),
    to: day(params.get("to")),
    customer: customer && /^\d+$/.test(customer) ? customer : undefined,
    q: bounded(params.get("q"), 64),
    sort: params.get("sort") === "asc" ? "asc" : "desc",
  };
}

/** The filter as URL parameters (defaults left out), for links, the export and the pages. */
export function filterParams(filter: LogFilter): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of ["kind", "state", "from", "to", "customer", "q"] as const) {
    const value = filter[key];
    if (value) params.set(key, value);
  }
  if (filter.sort === "asc") params.set("sort", "asc");
  return params;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(`${cursor.at.toISOString()}|${cursor.id}`).toString("base64url");
}

export function decodeCursor(value: string | null): Cursor | undefined {
  if (!value || value.length > 200) return undefined;
  const [iso, id, extra] = Buffer.from(value, "base64url").toString("utf8").split("|");
  if (extra !== undefined || !id || !/^[0-9a-zA-Z-]{1,64}$/.test(id)) return undefined;
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? undefined : { at, id };
}

function createdRange(filter: LogFilter) {
  const range: { gte?: Date; lt?: Date } = {};
  if (filter.from) range.gte = new Date(`${filter.from}T00:00:00Z`);
  if (filter.to) range.lt = new Date(Date.parse(`${filter.to}T00:00:00Z`) + 86_400_000);
  return range.gte || range.lt ? { createdAt: range } : {};
}

/** Rows after the cursor in the given direction, on (createdAt, id): the indexes (shop, …, createdAt, id) serve it. */
export function afterCursor(cursor: Cursor | undefined, direction: "asc" | "desc") {
  if (!cursor) return {};
  const op = direction === "desc" ? "lt" : "gt";
  // The outer bound is redundant but lets PostgreSQL start the index range at the cursor instead of filtering
  // every row before it (Prisma cannot write the row comparison ("createdAt", id) < (…, …)).
  return {
    createdAt: { [direction === "desc" ? "lte" : "gte"]: cursor.at },
    OR: [{ createdAt: { [op]: cursor.at } }, { createdAt: cursor.at, id: { [op]: cursor.id } }],
  };
}

/** The order name or number a merchant typed: "#1001", "1001" or a Shopify order id. */
function searchWhere(q: string): Prisma.SyncRecordWhereInput {
  const bare = q.replace(/^#/, "");
  const names = [...new Set([q, `#${bare}`])];
  return /^\d+$/.test(bare) ? { OR: [{ orderName: { in: names } }, { orderId: bare }] } : { orderName: { in: names } };
}

/** Where for SyncRecord rows, or null when the filter rules records out (kind "handoff", state "created"). */
export function recordWhere(shop: string, filter: LogFilter): Prisma.SyncRecordWhereInput | null {
  if (filter.kind === "handoff" || filter.state === "created") return null;
  const state: Prisma.SyncRecordWhereInput =
    filter.state === "attention"
      ? { state: "failed", resolvedAt: null }
      : filter.state === "resolved"
        ? { resolvedAt: { not: null } }
        : filter.state
          ? { state: filter.state }
          : {};
  return {
    shop,
    ...(filter.kind ? { kind: filter.kind } : {}),
    ...state,
    ...(filter.customer ? { customerId: filter.customer } : {}),
    ...createdRange(filter),
    ...(filter.q ? searchWhere(filter.q) : {}),
  };
}

const HANDOFF_STATES = new Set(["pending", "created", "failed"]);

/** Where for CartHandoff rows, or null when the filter rules handoffs out (another kind, an order search, …). */
export function handoffWhere(shop: string, filter: LogFilter): Prisma.CartHandoffWhereInput | null {
  if ((filter.kind && filter.kind !== "handoff") || filter.q) return null;
  if (filter.state && !HANDOFF_STATES.has(filter.state)) return null;
  return {
    shop,
    ...(filter.state ? { state: filter.state } : {}),
    ...(filter.customer ? { customerId: filter.customer } : {}),
    ...createdRange(filter),
  };
}
