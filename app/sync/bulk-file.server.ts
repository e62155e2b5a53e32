// A bulk operation's JSONL result, read as a stream. Shopify writes one object per line; each node of a nested
// connection is its own line with `__parentId`, and since 2026-01 (groupObjects false) a child line may come before
// or after its parent, anywhere in the file. Two passes over the same file (its URL stays valid for days):
// 1. `scanBulkFile` checks the whole file before anything is queued: every line is JSON, the line count is the
//    operation's objectCount (a file cut short at a line boundary is caught too), every `__parentId` names an object
//    of the file; it keeps ids and counts only (how many children each kept order has), never an order's content,
//    and orders of customers who are not being backfilled are known by id only.
// 2. `joinBulkFile` reads it again and hands over each kept order as soon as its last child has been read: memory
//    holds the orders open at that moment, not the file. Orders not kept are dropped as they are read.
import type { GqlOrder } from "./backfill-queries.server";

/** Why a file cannot be used; the words go to the merchant's view. */
export class BulkFileProblem extends Error {}

/** The lines of a byte stream, split on "\n" (a last line without one is a line too). */
export async function* jsonlLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let rest = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    rest += decoder.decode(chunk, { stream: true });
    let at: number;
    let from = 0;
    while ((at = rest.indexOf("\n", from)) >= 0) {
      const line = rest.slice(from, at);
      from = at + 1;
      if (line.trim()) yield line;
    }
    rest = rest.slice(from);
  }
  rest += decoder.decode();
  if (rest.trim()) yield rest;
}

type Line = Record<string, unknown> & { id?: unknown; __parentId?: unknown };

function parseLine(text: string, n: number): Line {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BulkFileProblem(`Shopify's result file has a line that is not JSON (line ${n}): the file is damaged.`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new BulkFileProblem(`Shopify's result file has a line that is not an object (line ${n}).`);
  return value as Line;
}

const isOrder = (line: Line) => typeof line.id === "string" && line.id.startsWith("gid://shopify/Order/");

/** Which orders are wanted: those of a customer being backfilled, inside that customer's window. */
export type KeepOrder = (order: { customerId: string | null; createdAt: string }) => boolean;

const customerOf = (line: Line) => {
  const id = (line.customer as { id?: unknown } | null | undefined)?.id;
  return typeof id === "string" ? (/\/(\d+)$/.exec(id)?.[1] ?? id) : null;
};

export interface ScanResult {
  /** Kept orders and how many child lines each has (its lines and its fulfillments' lines). */
  expected: Map<string, number>;
  /** Fulfillment id -> its kept order. */
  owners: Map<string, string>;
  /** Kept orders per customer (Shopify's id). */
  foundByCustomer: Map<string, number>;
  lines: number;
}

/** Pass 1: the whole file checked, ids and counts kept (see the module's comment). */
export async function scanBulkFile(
  lines: AsyncIterable<string>,
  options: { objectCount: number; keep: KeepOrder },
): Promise<ScanResult> {
  const childCount = new Map<string, number>();
  const kept = new Set<string>();
  const dropped = new Set<string>();
  const fulfillments = new Map<string, string>(); // fulfillment -> order (every order's)
  const foundByCustomer = new Map<string, number>();
  let n = 0;
  for await (const text of lines) {
    n += 1;
    const line = parseLine(text, n);
    if (line.__parentId !== undefined) {
      if (typeof line.__parentId !== "string")
        throw new BulkFileProblem(`Shopify's result file has a line with a malformed parent (line ${n}).`);
      childCount.set(line.__parentId, (childCount.get(line.__parentId) ?? 0) + 1);
      continue;
    }
    if (!isOrder(line))
      throw new BulkFileProblem(`Shopify's result file has an object that is not an order (line ${n}).`);
    const id = line.id as string;
    const customerId = customerOf(line);
    const keep = options.keep({ customerId, createdAt: String(line.createdAt ?? "") });
    (keep ? kept : dropped).add(id);
    if (keep && customerId) foundByCustomer.set(customerId, (foundByCustomer.get(customerId) ?? 0) + 1);
    for (const f of Array.isArray(line.fulfillments) ? (line.fulfillments as Line[]) : [])
      if (typeof f?.id === "string") fulfillments.set(f.id, id);
  }
  if (n !== options.objectCount)
    throw new BulkFileProblem(
      `Shopify's result file ended early: ${n} of ${options.objectCount} objects were read (the download was cut short).`,
    );
  const expected = new Map<string, number>();
  for (const id of kept) expected.set(id, 0);
  for (const [parent, count] of childCount) {
    const order = kept.has(parent) || dropped.has(parent) ? parent : fulfillments.get(parent);
    if (!order)
      throw new BulkFileProblem(
        "Shopify's result file has a line whose parent is not in the file (an unknown __parentId).",
      );
    if (expected.has(order)) expected.set(order, expected.get(order)! + count);
  }
  const owners = new Map<string, string>();
  for (const [f, order] of fulfillments) if (kept.has(order)) owners.set(f, order);
  return { expected, owners, foundByCustomer, lines: n };
}

interface OpenOrder {
  root?: Line;
  lineItems: Line[];
  fulfillmentLines: Map<string, Line[]>;
  seen: number;
}

/** Pass 2: each kept order, whole, as soon as its last line has been read (in the order they complete). */
export async function* joinBulkFile(lines: AsyncIterable<string>, scan: ScanResult): AsyncGenerator<GqlOrder> {
  const open = new Map<string, OpenOrder>();
  const entry = (id: string) => {
    let o = open.get(id);
    if (!o) open.set(id, (o = { lineItems: [], fulfillmentLines: new Map(), seen: 0 }));
    return o;
  };
  let n = 0;
  for await (const text of lines) {
    n += 1;
    const line = parseLine(text, n);
    let orderId: string | undefined;
    if (typeof line.__parentId === "string") {
      const parent = line.__parentId;
      orderId = scan.expected.has(parent) ? parent : scan.owners.get(parent);
      if (!orderId) continue; // a line of an order not kept: dropped
      const o = entry(orderId);
      const { __parentId: _, ...child } = line;
      if (parent === orderId) o.lineItems.push(child);
      else {
        const list = o.fulfillmentLines.get(parent) ?? [];
        list.push(child);
        o.fulfillmentLines.set(parent, list);
      }
      o.seen += 1;
    } else {
      orderId = line.id as string;
      if (!scan.expected.has(orderId)) continue; // an order not kept: dropped
      entry(orderId).root = line;
    }
    const o = open.get(orderId)!;
    if (o.root && o.seen === scan.expected.get(orderId)) {
      open.delete(orderId);
      yield assemble(o);
    }
  }
  if (n !== scan.lines || open.size > 0)
    throw new BulkFileProblem("Shopify's result file changed or ended early while it was read.");
}

/** The order in the paged query's shape (restOrderFromGraphql reads it). */
function assemble(o: OpenOrder): GqlOrder {
  const root = o.root as unknown as GqlOrder & { fulfillments?: Line[] };
  return {
    ...root,
    lineItems: { nodes: o.lineItems as never },
    fulfillments: (root.fulfillments ?? []).map((f) => ({
      ...(f as unknown as NonNullable<GqlOrder["fulfillments"]>[number]),
      fulfillmentLineItems: { nodes: (o.fulfillmentLines.get(String(f.id)) ?? []) as never },
    })),
  };
}
