// The sync log: every order import, shipment import and cart handoff of a shop, newest first (or oldest), one
// keyset page at a time so the 4,000th page costs what the first does. Plain functions over Prisma, scoped by shop.
import type { CartHandoff, Prisma, PrismaClient, SyncRecord } from "@prisma/client";
import { RETRYABLE_STATES } from "../sync/states";
import { isSyncPaused } from "../sync/status.server";
import {
  afterCursor,
  decodeCursor,
  encodeCursor,
  filterParams,
  handoffWhere,
  parseLogFilter,
  recordWhere,
  type Cursor,
  type LogFilter,
  type LogKind,
} from "./log-query.server";

export const LOG_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 1000;

export interface LogRow {
  id: string;
  kind: LogKind;
  /** "#1001" when Shopify told us; null for handoffs and records from before names were kept. */
  orderName: string | null;
  orderId: string | null;
  externalId: string;
  customerId: string | null;
  /** The customer's name or email from their grant, else "Customer <id>", else "". */
  customer: string;
  createdAt: string;
  state: string;
  resolved: boolean;
  /** The stored words (English); pages word it from reasonCode in the admin's language where they can. */
  reason: string | null;
  reasonCode: string | null;
  /** The facts the reason's words need (SyncRecord.reasonDetails), worded in the admin's language. */
  reasonDetails?: unknown;
  /** A cart handoff's line count; null for imports. */
  lines: number | null;
  attempts: number;
  canRetry: boolean;
}

export interface LogPage {
  rows: LogRow[];
  /** Cursor of the page after this one (older when newest first), null at the end. */
  next: string | null;
  /** Cursor of the page before this one, null on the first page. */
  previous: string | null;
}

type Direction = "asc" | "desc";
interface Sortable {
  createdAt: Date;
  id: string;
}

const compare = (direction: Direction) => (a: Sortable, b: Sortable) => {
  const d = a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return direction === "asc" ? d : -d;
};

function recordRow(r: SyncRecord, names: Map<string, string>): LogRow {
  return {
    id: r.id,
    kind: r.kind as LogKind,
    orderName: r.orderName,
    orderId: r.orderId,
    externalId: r.externalId,
    customerId: r.customerId,
    customer: customerLabel(r.customerId, names),
    createdAt: r.createdAt.toISOString(),
    state: r.state,
    resolved: r.resolvedAt !== null,
    reason: r.reason,
    reasonCode: r.reasonCode,
    reasonDetails: r.reasonDetails,
    lines: null,
    attempts: r.attempts,
    canRetry: RETRYABLE_STATES.has(r.state),
  };
}

function handoffRow(h: CartHandoff, names: Map<string, string>): LogRow {
  return {
    id: h.id,
    kind: "handoff",
    orderName: null,
    orderId: null,
    externalId: h.externalCartId,
    customerId: h.customerId,
    customer: customerLabel(h.customerId, names),
    createdAt: h.createdAt.toISOString(),
    state: h.state,
    resolved: false,
    reason: h.reason ?? `Cart of ${h.lineCount} line${h.lineCount === 1 ? "" : "s"}`,
    reasonCode: h.reason ? h.reasonCode : "cart_lines",
    lines: h.lineCount,
    attempts: h.attempts,
    canRetry: false,
  };
}

/** The customer's name or email from their grant, else "Customer <id>", else `none`. */
export const customerLabel = (id: string | null, names: Map<string, string>, none = "") =>
  id ? (names.get(id) ?? `Customer ${id}`) : none;

/** Names of the customers on one page, from their grants (one query). */
export async function customerNames(
  prisma: PrismaClient,
  shop: string,
  ids: (string | null)[],
): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => !!id))];
  if (wanted.length === 0) return new Map();
  const grants = await prisma.customerGrant.findMany({
    where: { shop, customerId: { in: wanted } },
    select: { customerId: true, customerName: true, customerEmail: true },
  });
  return new Map(
    grants
      .filter((g) => g.customerName || g.customerEmail)
      .map((g) => [g.customerId, (g.customerName || g.customerEmail)!]),
  );
}

/**
 * Up to `limit` rows past the cursor, in `direction`: each table gives its own first limit+1 rows from its index and
 * the two are merged, so the union is exact without an OFFSET or a scan of either table.
 */
async function fetchRows(
  prisma: PrismaClient,
  shop: string,
  filter: LogFilter,
  cursor: Cursor | undefined,
  direction: Direction,
  limit: number,
) {
  const orderBy = [{ createdAt: direction }, { id: direction }] as const;
  const rw = recordWhere(shop, filter);
  const hw = handoffWhere(shop, filter);
  const [records, handoffs] = await Promise.all([
    rw
      ? prisma.syncRecord.findMany({
          where: { AND: [rw, afterCursor(cursor, direction) as Prisma.SyncRecordWhereInput] },
          orderBy: [...orderBy],
          take: limit + 1,
        })
      : [],
    hw
      ? prisma.cartHandoff.findMany({
          where: { AND: [hw, afterCursor(cursor, direction) as Prisma.CartHandoffWhereInput] },
          orderBy: [...orderBy],
          take: limit + 1,
        })
      : [],
  ]);
  const merged = [
    ...records.map((r) => ({ createdAt: r.createdAt, id: r.id, record: r })),
    ...handoffs.map((h) => ({ createdAt: h.createdAt, id: h.id, handoff: h })),
  ];
  merged.sort(compare(direction));
  return { items: merged.slice(0, limit), more: merged.length > limit };
}

export async function listLog(
  prisma: PrismaClient,
  shop: string,
  filter: LogFilter,
  page: { after?: Cursor; before?: Cursor; limit?: number } = {},
): Promise<LogPage> {
  const limit = Math.min(Math.max(1, page.limit ?? LOG_PAGE_SIZE), MAX_PAGE_SIZE);
  const backwards = !page.after && !!page.before;
  const reverse: Direction = filter.sort === "asc" ? "desc" : "asc";
  const { items, more } = await fetchRows(
    prisma,
    shop,
    filter,
    backwards ? page.before : page.after,
    backwards ? reverse : filter.sort,
    limit,
  );
  if (backwards) items.reverse();
  const names = await customerNames(
    prisma,
    shop,
    items.map((i) => ("record" in i ? i.record!.customerId : i.handoff!.customerId)),
  );
  const rows = items.map((i) => ("record" in i ? recordRow(i.record!, names) : handoffRow(i.handoff!, names)));
  const first = items[0];
  const last = items[items.length - 1];
  const hasNext = backwards ? true : more;
  const hasPrevious = backwards ? more : !!page.after;
  return {
    rows,
    next: hasNext && last ? encodeCursor({ at: last.createdAt, id: last.id }) : null,
    previous: hasPrevious && first ? encodeCursor({ at: first.createdAt, id: first.id }) : null,
  };
}

/**
 * Walks every row matching the filter, page by page with the cursor, never holding more than one page: the CSV
 * export and "retry all failed matching the filter" use it.
 */
export async function* walkLog(
  prisma: PrismaClient,
  shop: string,
  filter: LogFilter,
  pageSize = 500,
): AsyncGenerator<LogRow[]> {
  let after: Cursor | undefined;
  for (;;) {
    const { items, more } = await fetchRows(prisma, shop, filter, after, filter.sort, pageSize);
    if (items.length === 0) return;
    const names = await customerNames(
      prisma,
      shop,
      items.map((i) => ("record" in i ? i.record!.customerId : i.handoff!.customerId)),
    );
    yield items.map((i) => ("record" in i ? recordRow(i.record!, names) : handoffRow(i.handoff!, names)));
    if (!more) return;
    const last = items[items.length - 1];
    after = { at: last.createdAt, id: last.id };
  }
}

/**
 * Whether the shop has work running now (a backfill, due or running jobs): the pages then refresh themselves. A paused
 * shop's due jobs do not move, so only what is really running counts then.
 */
export async function hasRunningWork(prisma: PrismaClient, shop: string, now = new Date()): Promise<boolean> {
  const paused = await isSyncPaused(prisma, shop);
  const due = paused ? [{ status: "running" }] : [{ status: "running" }, { status: "queued", runAt: { lte: now } }];
  const [backfill, job] = await Promise.all([
    prisma.backfill.findFirst({ where: { shop, status: "running" }, select: { id: true } }),
    prisma.job.findFirst({ where: { shop, OR: due }, select: { id: true } }),
  ]);
  return !!backfill || !!job;
}

/** Everything the sync log page shows for a URL's query: the filter, one page, pause state, whether work runs. */
export async function loadLogView(prisma: PrismaClient, shop: string, params: URLSearchParams) {
  const filter = parseLogFilter(params);
  const [page, paused, busy] = await Promise.all([
    listLog(prisma, shop, filter, {
      after: decodeCursor(params.get("after")),
      before: decodeCursor(params.get("before")),
    }),
    isSyncPaused(prisma, shop),
    hasRunningWork(prisma, shop),
  ]);
  return {
    filter,
    query: filterParams(filter).toString(),
    page,
    paused,
    busy,
    filtered: filterParams({ ...filter, sort: "desc" }).size > 0,
  };
}
