// Shopify's calculated query cost, for the Admin API stand-in: every query is priced before it runs by Shopify's
// published rules (shopify.dev/docs/apps/build/apis/graphql-admin/rate-limits): scalars and enums 0, an object 1,
// a connection or a sized list 2 + `first`/`last` x the cost of one node, `nodes(ids:)` one node per id, an
// interface or union the most expensive of its selections. A query over 1,000 is refused (MAX_COST_EXCEEDED); what
// it may cost is taken from a leaky bucket per shop (standard plan: 1,000 points, 100 restored a second) and a query
// that does not fit is refused (THROTTLED); the unused part of the requested cost is given back once the answer is
// known (its actual cost counts the nodes returned). Every answer reports `extensions.cost` as Shopify does.
import { HttpResponse } from "msw";
import {
  Kind,
  parse,
  type FieldNode,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from "graphql";

export const SINGLE_QUERY_MAX_COST = 1000;

type Vars = Record<string, unknown>;

export class QueryCostError extends Error {}

function argValue(node: ValueNode | undefined, variables: Vars): unknown {
  if (!node) return undefined;
  switch (node.kind) {
    case Kind.VARIABLE:
      return variables[node.name.value];
    case Kind.INT:
      return Number(node.value);
    case Kind.LIST:
      return node.values.map((v) => argValue(v, variables));
    case Kind.NULL:
      return null;
    default:
      return "value" in node ? node.value : undefined;
  }
}

function arg(field: FieldNode, name: string, variables: Vars): unknown {
  return argValue(field.arguments?.find((a) => a.name.value === name)?.value, variables);
}

/** How many nodes a field may return, when it is a connection or a sized list; undefined for a single object. */
function sizeOf(field: FieldNode, variables: Vars): number | undefined {
  const first = arg(field, "first", variables);
  const last = arg(field, "last", variables);
  const size = typeof first === "number" ? first : typeof last === "number" ? last : undefined;
  if (size !== undefined) {
    if (!Number.isInteger(size) || size < 0 || size > 250)
      throw new QueryCostError(`${field.name.value}: first/last must be between 0 and 250`);
    return size;
  }
  const ids = arg(field, "ids", variables);
  if (field.name.value === "nodes" && Array.isArray(ids)) return ids.length;
  const children =
    field.selectionSet?.selections.filter((s): s is FieldNode => s.kind === Kind.FIELD).map((s) => s.name.value) ?? [];
  if (
    children.includes("edges") ||
    children.includes("pageInfo") ||
    (children.includes("nodes") && field.name.value !== "nodes")
  ) {
    throw new QueryCostError(`you must provide one of first or last for the ${field.name.value} connection`);
  }
  return undefined;
}

interface Walk {
  variables: Vars;
  fragments: Map<string, FragmentDefinitionNode>;
}

/** The fields a selection set asks for, type-conditioned fragments kept apart (an interface costs its dearest). */
function costOfSelections(set: SelectionSetNode | undefined, walk: Walk, fieldCost: (f: FieldNode) => number): number {
  if (!set) return 0;
  let plain = 0;
  let dearestFragment = 0;
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) plain += fieldCost(s);
    else if (s.kind === Kind.INLINE_FRAGMENT) {
      const c = costOfSelections(s.selectionSet, walk, fieldCost);
      if (s.typeCondition) dearestFragment = Math.max(dearestFragment, c);
      else plain += c;
    } else {
      const fragment = walk.fragments.get(s.name.value);
      if (!fragment) throw new QueryCostError(`unknown fragment ${s.name.value}`);
      dearestFragment = Math.max(dearestFragment, costOfSelections(fragment.selectionSet, walk, fieldCost));
    }
  }
  return plain + dearestFragment;
}

/** The selection one node of a connection is priced by: `nodes { … }` or `edges { node { … } }`. */
function nodeSelection(field: FieldNode): SelectionSetNode | undefined {
  const children = field.selectionSet?.selections.filter((s): s is FieldNode => s.kind === Kind.FIELD) ?? [];
  const nodes = children.find((c) => c.name.value === "nodes");
  if (nodes && field.name.value !== "nodes") return nodes.selectionSet;
  const edges = children.find((c) => c.name.value === "edges");
  if (edges)
    return edges.selectionSet?.selections.find((s): s is FieldNode => s.kind === Kind.FIELD && s.name.value === "node")
      ?.selectionSet;
  return field.selectionSet; // a sized list of objects
}

function parsed(query: string, variables: Vars) {
  let document;
  try {
    document = parse(query);
  } catch (error) {
    throw new QueryCostError(error instanceof Error ? error.message : "unparseable query");
  }
  const fragments = new Map<string, FragmentDefinitionNode>();
  const operations = [];
  for (const d of document.definitions) {
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    else if (d.kind === Kind.OPERATION_DEFINITION) operations.push(d);
  }
  if (operations.length !== 1) throw new QueryCostError("send exactly one operation");
  return { operation: operations[0], walk: { variables, fragments } };
}

/** The cost Shopify asks for before running `query` with `variables` (the worst case its sizes allow). */
export function requestedQueryCost(query: string, variables: Vars = {}): number {
  const { operation, walk } = parsed(query, variables);
  const fieldCost = (field: FieldNode): number => {
    if (!field.selectionSet) return 0;
    const size = sizeOf(field, walk.variables);
    if (size === undefined) return 1 + costOfSelections(field.selectionSet, walk, fieldCost);
    const oneNode = 1 + costOfSelections(nodeSelection(field), walk, fieldCost);
    return (field.name.value === "nodes" ? 0 : 2) + size * oneNode;
  };
  const base = operation.operation === "mutation" ? 10 : 0;
  return base + costOfSelections(operation.selectionSet, walk, fieldCost);
}

/** What the answer cost: the same rules over the nodes actually returned. */
export function actualQueryCost(query: string, variables: Vars, data: unknown): number {
  const { operation, walk } = parsed(query, variables);
  const objectCost = (set: SelectionSetNode | undefined, value: unknown): number => {
    if (!value || typeof value !== "object") return 0;
    const record = value as Record<string, unknown>;
    return costOfSelections(set, walk, (f) => fieldCost(f, record[f.alias?.value ?? f.name.value]));
  };
  const fieldCost = (field: FieldNode, value: unknown): number => {
    if (!field.selectionSet) return 0;
    const size = sizeOf(field, walk.variables);
    if (size === undefined) return value == null ? 1 : 1 + objectCost(field.selectionSet, value);
    const items = Array.isArray(value)
      ? value
      : ((value as { nodes?: unknown[]; edges?: { node?: unknown }[] } | null)?.nodes ??
        (value as { edges?: { node?: unknown }[] } | null)?.edges?.map((e) => e.node) ??
        []);
    const each = items.reduce<number>(
      (sum, item) => sum + (item == null ? 0 : 1 + objectCost(nodeSelection(field), item)),
      0,
    );
    return (field.name.value === "nodes" ? 0 : 2) + each;
  };
  return (operation.operation === "mutation" ? 10 : 0) + objectCost(operation.selectionSet, data);
}

export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

export interface QueryCostLimiterOptions {
  maximumAvailable?: number;
  /** Points restored a second (standard plan 100). */
  restoreRate?: number;
  now?: () => number;
}

/** The leaky bucket per shop (per app and store, as Shopify keeps it). */
export class QueryCostLimiter {
  readonly maximumAvailable: number;
  readonly restoreRate: number;
  private readonly now: () => number;
  private readonly buckets = new Map<string, { available: number; at: number }>();
  /** Totals for the bench and the tests: points spent, queries refused as throttled. */
  spent = 0;
  throttled = 0;
  maxCostExceeded = 0;

  constructor(options: QueryCostLimiterOptions = {}) {
    this.maximumAvailable = options.maximumAvailable ?? 1000;
    this.restoreRate = options.restoreRate ?? 100;
    this.now = options.now ?? Date.now;
  }

  private bucket(shop: string) {
    const now = this.now();
    const b = this.buckets.get(shop) ?? { available: this.maximumAvailable, at: now };
    b.available = Math.min(this.maximumAvailable, b.available + ((now - b.at) / 1000) * this.restoreRate);
    b.at = now;
    this.buckets.set(shop, b);
    return b;
  }

  status(shop: string): ThrottleStatus {
    return {
      maximumAvailable: this.maximumAvailable,
      currentlyAvailable: Math.floor(this.bucket(shop).available),
      restoreRate: this.restoreRate,
    };
  }

  /** Takes `points` when they are there; false (nothing taken) when the bucket cannot cover them. */
  take(shop: string, points: number): boolean {
    const b = this.bucket(shop);
    if (b.available < points) return false;
    b.available -= points;
    return true;
  }

  giveBack(shop: string, points: number) {
    const b = this.bucket(shop);
    b.available = Math.min(this.maximumAvailable, b.available + points);
  }
}

const DOCS = "https://shopify.dev/api/usage/rate-limits";

/** The body a handler answers with, before its cost is reported. */
export type GraphqlBody = { data?: unknown; errors?: unknown[] };

/**
 * Runs `answer` under Shopify's cost rules for the shop the request is addressed to: refuses over the single-query
 * limit, throttles when the shop's bucket is short, and reports the cost on every answer.
 */
export async function costed(
  limiter: QueryCostLimiter,
  input: { request: Request; query: string; variables: Vars },
  answer: () => GraphqlBody | Promise<GraphqlBody>,
): Promise<Response> {
  const shop = new URL(input.request.url).hostname;
  let requested: number;
  try {
    requested = requestedQueryCost(input.query, input.variables);
  } catch (error) {
    return HttpResponse.json({ errors: [{ message: error instanceof Error ? error.message : "bad query" }] });
  }
  if (requested > SINGLE_QUERY_MAX_COST) {
    limiter.maxCostExceeded += 1;
    return HttpResponse.json({
      errors: [
        {
          message: `Query cost is ${requested}, which exceeds the single query max cost limit (${SINGLE_QUERY_MAX_COST}).`,
          extensions: {
            code: "MAX_COST_EXCEEDED",
            cost: requested,
            maxCost: SINGLE_QUERY_MAX_COST,
            documentation: DOCS,
          },
        },
      ],
    });
  }
  if (!limiter.take(shop, requested)) {
    limiter.throttled += 1;
    return HttpResponse.json({
      errors: [{ message: "Throttled", extensions: { code: "THROTTLED", documentation: DOCS } }],
      extensions: {
        cost: { requestedQueryCost: requested, actualQueryCost: null, throttleStatus: limiter.status(shop) },
      },
    });
  }
  const body = await answer();
  const actual = Math.min(requested, actualQueryCost(input.query, input.variables, body.data));
  limiter.giveBack(shop, requested - actual);
  limiter.spent += actual;
  return HttpResponse.json({
    ...body,
    extensions: {
      cost: { requestedQueryCost: requested, actualQueryCost: actual, throttleStatus: limiter.status(shop) },
    },
  });
}
