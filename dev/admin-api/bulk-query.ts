// A bulk query and its result file's lines, for the bulk operations stand-in (./bulk.ts): the query's shape as
// Shopify's bulk operations guide counts it (at least one connection, at most five, nested at most two levels, no
// top-level node or nodes), and the orders cut to that shape, each node of a nested connection on a JSONL line of its
// own (`__parentId`), shuffled within windows of orders as `groupObjects` false allows.
import { Kind, parse, type FieldNode, type SelectionSetNode } from "graphql";
import type { PastOrder } from "../demo-store";
import { graphqlOrder, matchesSearch } from "./orders";

/** Connections (fields with nodes or edges) and their deepest nesting, as the guide counts them. */
export function bulkQueryProblems(query: string): string | null {
  let document;
  try {
    document = parse(query);
  } catch (error) {
    return `Invalid bulk query: ${error instanceof Error ? error.message : "unparseable"}`;
  }
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  if (!operation || operation.kind !== Kind.OPERATION_DEFINITION || operation.operation !== "query")
    return "Bulk queries must contain exactly one query operation.";
  let connections = 0;
  let deepest = 0;
  const walk = (set: SelectionSetNode | undefined, depth: number, top: boolean) => {
    for (const s of set?.selections ?? []) {
      if (s.kind !== Kind.FIELD) {
        if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet, depth, top);
        continue;
      }
      if (top && (s.name.value === "node" || s.name.value === "nodes")) throw new Error("top-level node");
      const node = connectionNode(s);
      if (node) {
        connections += 1;
        deepest = Math.max(deepest, depth + 1);
        walk(node, depth + 1, false);
      } else walk(s.selectionSet, depth, false);
    }
  };
  try {
    walk(operation.selectionSet, 0, true);
  } catch {
    return "Bulk queries cannot use the top-level node or nodes fields.";
  }
  if (connections === 0) return "Bulk queries must contain at least one connection.";
  if (connections > 5) return `Bulk queries cannot contain more than 5 connections (this one has ${connections}).`;
  if (deepest > 2) return "Bulk queries cannot contain connections nested more than 2 levels deep.";
  return null;
}

/** The selection of one node when `field` is a connection (`edges { node }` or `nodes`), else undefined. */
function connectionNode(field: FieldNode): SelectionSetNode | undefined {
  const children = field.selectionSet?.selections.filter((s): s is FieldNode => s.kind === Kind.FIELD) ?? [];
  const nodes = children.find((c) => c.name.value === "nodes");
  if (nodes) return nodes.selectionSet;
  const edges = children.find((c) => c.name.value === "edges");
  return edges?.selectionSet?.selections.find((s): s is FieldNode => s.kind === Kind.FIELD && s.name.value === "node")
    ?.selectionSet;
}

/** An object cut to a selection; each node of a nested connection goes to `emit` as its own line. */
function project(
  value: unknown,
  set: SelectionSetNode | undefined,
  parentId: string | undefined,
  emit: (line: Record<string, unknown>) => void,
): unknown {
  if (value === null || typeof value !== "object" || !set) return value ?? null;
  if (Array.isArray(value)) return value.map((v) => project(v, set, parentId, emit));
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const ownId = typeof source.id === "string" ? source.id : parentId;
  for (const s of set.selections) {
    if (s.kind !== Kind.FIELD) continue;
    const key = s.alias?.value ?? s.name.value;
    const node = connectionNode(s);
    if (node) {
      const items = ((source[s.name.value] as { nodes?: unknown[] } | undefined)?.nodes ?? []) as unknown[];
      for (const item of items) {
        const line = project(item, node, ownId, emit) as Record<string, unknown>;
        emit({ ...line, __parentId: ownId });
      }
      continue;
    }
    out[key] = s.selectionSet
      ? project(source[s.name.value], s.selectionSet, ownId, emit)
      : (source[s.name.value] ?? null);
  }
  return out;
}

/**
 * The result's objects of a bulk query over `orders` in the order they are written: each order cut to the query's
 * shape, its nested nodes on lines of their own, and (`shuffled`) the lines of each window of orders shuffled.
 */
export function* resultLines(
  query: string,
  orders: Iterable<PastOrder>,
  { seed, window, shuffled }: { seed: number; window: number; shuffled: boolean },
): Generator<Record<string, unknown>> {
  const document = parse(query);
  const operation = document.definitions[0];
  if (operation.kind !== Kind.OPERATION_DEFINITION) return;
  const ordersField = operation.selectionSet.selections.find(
    (s): s is FieldNode => s.kind === Kind.FIELD && s.name.value === "orders",
  );
  if (!ordersField) return;
  const search = ordersField.arguments?.find((a) => a.name.value === "query")?.value;
  const text = search && search.kind === Kind.STRING ? search.value : "";
  const node = connectionNode(ordersField);
  const next = random(seed);
  let batch: Record<string, unknown>[] = [];
  let inWindow = 0;
  const flush = function* () {
    if (shuffled)
      for (let i = batch.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [batch[i], batch[j]] = [batch[j], batch[i]];
      }
    yield* batch;
    batch = [];
    inWindow = 0;
  };
  for (const order of orders) {
    if (!matchesSearch(order, text)) continue;
    const full = graphqlOrder(order);
    const children: Record<string, unknown>[] = [];
    const root = project(full, node, undefined, (line) => children.push(line)) as Record<string, unknown>;
    batch.push(root, ...children);
    if (++inWindow >= window) yield* flush();
  }
  yield* flush();
}

/** A small deterministic generator (mulberry32), so a shuffle can be replayed. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
