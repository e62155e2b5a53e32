// Shopify's bulk query operations, for the Admin API stand-in, as Shopify documents them:
// - the guide, shopify.dev/docs/api/usage/bulk-operations/queries: a bulk query has at least one connection, at most
//   five connections and at most two levels of nested connections; from API version 2026-01 up to five bulk query
//   operations run at a time per shop and app (one before); the result is a JSONL file, one line per object, each
//   node of a nested connection on its own line with `__parentId` (the enclosing object's id); with `groupObjects`
//   false (the default from 2026-01, bulkOperationRunQuery's argument in the 2026-01 schema) a child line is not
//   guaranteed to follow its parent: here lines are shuffled within windows of orders, children before parents too;
// - the BulkOperation object (shopify.dev/docs/api/admin-graphql/latest/objects/BulkOperation): status
//   (BulkOperationStatus: CREATED, RUNNING, COMPLETED, FAILED, CANCELING, CANCELED, EXPIRED), errorCode
//   (BulkOperationErrorCode: ACCESS_DENIED, INTERNAL_SERVER_ERROR, TIMEOUT), objectCount and rootObjectCount
//   (UnsignedInt64, a string in JSON), url (null until COMPLETED; "url and partialDataUrl values expire after seven
//   days"), read with `bulkOperation(id:)` (changelog "New queries for bulk operations", 2026-01; currentBulkOperation
//   is deprecated in 2026-10's schema);
// - bulkOperationRunQuery's userErrors (BulkOperationUserError: field, message, code of BulkOperationUserErrorCode:
//   INVALID, LIMIT_REACHED "Bulk operations limit reached. Please try again later.", OPERATION_IN_PROGRESS "A bulk
//   operation is already in progress."). Which code the fifth-plus operation gets is not said: `busyCode` picks one
//   and the app's tests run both;
// - the `bulk_operations/finish` webhook (changelog "New webhook topic notifies when a Bulk Operation has
//   finished"; the topic's example payload in shopify.dev/docs/api/webhooks: admin_graphql_api_id, completed_at,
//   created_at, error_code, status in lower case, type), signed like every webhook (dev/shopify/webhooks.ts).
// The messages of INVALID userErrors are this stand-in's words (Shopify's are not published). The only bulk query it
// runs is over orders (the backfill's), with the order fields dev/admin-api/orders.ts answers.
import { graphql, http, HttpResponse } from "msw";
import type { PastOrder } from "../demo-store";
import { sendWebhook } from "../shopify/webhooks";
import { bulkQueryProblems, resultLines } from "./bulk-query";
import { costed, QueryCostLimiter } from "./cost";

export type BulkStatus = "CREATED" | "RUNNING" | "COMPLETED" | "FAILED" | "CANCELING" | "CANCELED" | "EXPIRED";
export type BulkErrorCode = "ACCESS_DENIED" | "INTERNAL_SERVER_ERROR" | "TIMEOUT";

export interface BulkOperationState {
  id: string;
  shop: string;
  apiVersion: string;
  query: string;
  status: BulkStatus;
  errorCode: BulkErrorCode | null;
  createdAt: string;
  completedAt: string | null;
  objectCount: number;
  rootObjectCount: number;
  /** When the result URL stops answering. */
  urlExpiresAt: number | null;
  /** Faults a test asks for in the file: cut after N bytes, a line replaced, a child pointing at no parent. */
  file: FileFaults;
}

export interface FileFaults {
  truncateAtLine?: number;
  malformedLine?: number;
  orphanLine?: number;
}

export interface BulkOptions {
  orders: () => Iterable<PastOrder>;
  limiter?: QueryCostLimiter;
  now?: () => number;
  /** Where bulk_operations/finish goes (signed with the app's secret); null: Shopify never delivers it. */
  webhook?: { appUrl: string; secret: string } | null;
  /** Operations finish on their own after this many ms (a timer); undefined: only when a test calls `finish`. */
  autoFinishMs?: number;
  /** Orders per shuffle window (lines of this many orders are shuffled together). */
  shuffleWindow?: number;
  /** The userErrors code for the concurrency limit. */
  busyCode?: "LIMIT_REACHED" | "OPERATION_IN_PROGRESS";
  /** How long a result URL answers (Shopify: seven days). */
  urlTtlMs?: number;
  seed?: number;
}

const SEVEN_DAYS = 7 * 86_400_000;
/** Where result files are served from (Shopify's are signed Google Cloud Storage URLs). */
export const BULK_FILE_ORIGIN = "https://storage.googleapis.com";
const FILE_PATH = "/shopify-bulk-stand-in/";

/** The limit per shop and app: five from 2026-01 (the guide), one before. */
export const concurrencyFor = (apiVersion: string) => (apiVersion >= "2026-01" ? 5 : 1);

const ACTIVE: BulkStatus[] = ["CREATED", "RUNNING", "CANCELING"];

export class BulkOperations {
  readonly operations = new Map<string, BulkOperationState>();
  /** Finish webhooks sent (tests count them). */
  readonly delivered: Record<string, unknown>[] = [];
  private nextId = 4_100_000_000;
  private readonly limiter: QueryCostLimiter;
  private readonly now: () => number;
  private timers = new Set<ReturnType<typeof setTimeout>>();

  constructor(private readonly options: BulkOptions) {
    this.limiter = options.limiter ?? new QueryCostLimiter();
    this.now = options.now ?? Date.now;
  }

  /** The operations running for a shop (CREATED, RUNNING, CANCELING). */
  active(shop: string) {
    return [...this.operations.values()].filter((o) => o.shop === shop && ACTIVE.includes(o.status));
  }

  handlers() {
    const link = graphql.link(/^https:\/\/[^/]+\/admin\/api\/[^/]+\/graphql\.json$/);
    return [
      link.mutation("SyncBulkOrders", (info) =>
        costed(this.limiter, info, () => this.runQuery(info.request, info.variables)),
      ),
      link.query("SyncBulkOperation", (info) =>
        costed(this.limiter, info, () => {
          const id = String(info.variables.id ?? "");
          const answer = { data: { bulkOperation: this.view(id) } };
          if (this.operations.has(id)) this.start(id); // seen CREATED once, then RUNNING until it ends
          return answer;
        }),
      ),
      http.get(`${BULK_FILE_ORIGIN}${FILE_PATH}:file`, ({ params }) => this.fileResponse(String(params.file))),
    ];
  }

  private runQuery(request: Request, variables: Record<string, unknown>) {
    const url = new URL(request.url);
    const shop = url.hostname;
    const apiVersion = /\/admin\/api\/([^/]+)\//.exec(url.pathname)?.[1] ?? "";
    const query = typeof variables.query === "string" ? variables.query : "";
    const invalid = (message: string, code: string, field: string[] | null = ["query"]) => ({
      data: { bulkOperationRunQuery: { bulkOperation: null, userErrors: [{ field, message, code }] } },
    });
    const problem = bulkQueryProblems(query);
    if (problem) return invalid(problem, "INVALID");
    if (this.active(shop).length >= concurrencyFor(apiVersion)) {
      const code = this.options.busyCode ?? "LIMIT_REACHED";
      return invalid(
        code === "LIMIT_REACHED"
          ? "Bulk operations limit reached. Please try again later."
          : "A bulk query operation for this app and shop is already in progress.",
        code,
        null,
      );
    }
    const id = `gid://shopify/BulkOperation/${this.nextId++}`;
    const op: BulkOperationState = {
      id,
      shop,
      apiVersion,
      query,
      status: "CREATED",
      errorCode: null,
      createdAt: new Date(this.now()).toISOString(),
      completedAt: null,
      objectCount: 0,
      rootObjectCount: 0,
      urlExpiresAt: null,
      file: {},
    };
    this.operations.set(id, op);
    if (this.options.autoFinishMs !== undefined) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (op.status === "CREATED" || op.status === "RUNNING") void this.finish(id);
      }, this.options.autoFinishMs);
      this.timers.add(timer);
    }
    return { data: { bulkOperationRunQuery: { bulkOperation: this.view(id), userErrors: [] } } };
  }

  /** The BulkOperation object as the API answers it. */
  view(id: string) {
    const op = this.operations.get(id);
    if (!op) return null;
    const urlLive = op.status === "COMPLETED" && op.objectCount > 0;
    return {
      id: op.id,
      status: op.status,
      errorCode: op.errorCode,
      createdAt: op.createdAt,
      completedAt: op.completedAt,
      objectCount: String(op.objectCount),
      rootObjectCount: String(op.rootObjectCount),
      fileSize: null,
      url: urlLive ? `${BULK_FILE_ORIGIN}${FILE_PATH}${op.id.split("/").pop()}.jsonl?Expires=${op.urlExpiresAt}` : null,
      partialDataUrl: null,
      query: op.query,
      type: "QUERY",
    };
  }

  /** Moves an operation to RUNNING (what Shopify does once it starts). */
  start(id: string) {
    const op = this.operations.get(id)!;
    if (op.status === "CREATED") op.status = "RUNNING";
  }

  /**
   * Ends an operation: COMPLETED (counting its objects), or FAILED with an error code, or CANCELED; then the finish
   * webhook, unless there is none. `file` sets faults in its result.
   */
  async finish(
    id: string,
    end: { status?: "COMPLETED" | "FAILED" | "CANCELED"; errorCode?: BulkErrorCode; file?: FileFaults } = {},
  ) {
    const op = this.operations.get(id);
    if (!op) throw new Error(`no bulk operation ${id}`);
    op.status = end.status ?? "COMPLETED";
    op.errorCode = op.status === "FAILED" ? (end.errorCode ?? "INTERNAL_SERVER_ERROR") : null;
    op.completedAt = new Date(this.now()).toISOString();
    op.file = end.file ?? {};
    if (op.status === "COMPLETED") {
      let objects = 0;
      let roots = 0;
      for (const line of this.lines(op, false)) {
        objects += 1;
        if (!("__parentId" in line)) roots += 1;
      }
      op.objectCount = objects;
      op.rootObjectCount = roots;
      op.urlExpiresAt = this.now() + (this.options.urlTtlMs ?? SEVEN_DAYS);
    }
    await this.notify(op);
  }

  /** The result URL stops answering (Shopify: after seven days), and the operation reads EXPIRED. */
  expire(id: string) {
    const op = this.operations.get(id)!;
    op.urlExpiresAt = 0;
    op.status = "EXPIRED";
  }

  private async notify(op: BulkOperationState) {
    const payload = {
      admin_graphql_api_id: op.id,
      completed_at: op.completedAt,
      created_at: op.createdAt,
      error_code: op.errorCode ? op.errorCode.toLowerCase() : null,
      status: op.status.toLowerCase(),
      type: "query",
    };
    this.delivered.push(payload);
    const target = this.options.webhook;
    if (!target) return;
    await sendWebhook(target.appUrl, "bulk_operations/finish", payload, { shop: op.shop, secret: target.secret });
  }

  /** The result's objects in the order they are written: each order's lines shuffled with its window's. */
  private lines(op: BulkOperationState, shuffled = true): Generator<Record<string, unknown>> {
    const window = Math.max(1, this.options.shuffleWindow ?? 64);
    return resultLines(op.query, this.options.orders(), { seed: this.options.seed ?? 40, window, shuffled });
  }

  /** The JSONL file, streamed; 403 once its URL has expired (as a signed storage URL answers). */
  /**
   * The answer for a result file (its last path segment). MSW serves it in tests; a bench serves it from a real
   * socket instead (MSW keeps a copy of every answer's body for its events, so a large file would sit in memory).
   */
  fileResponse(name: string) {
    const op = this.operations.get(`gid://shopify/BulkOperation/${name.replace(/\.jsonl$/, "")}`);
    if (!op || op.status !== "COMPLETED" || !op.urlExpiresAt || this.now() >= op.urlExpiresAt)
      return new HttpResponse(
        "<?xml version='1.0' encoding='UTF-8'?><Error><Code>AccessDenied</Code><Message>Access denied.</Message><Details>Request has expired</Details></Error>",
        { status: 403, headers: { "Content-Type": "application/xml; charset=UTF-8" } },
      );
    const lines = this.lines(op);
    const faults = op.file;
    const encoder = new TextEncoder();
    let n = 0;
    let orphaned = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        let chunk = "";
        for (let i = 0; i < 512; i++) {
          const next = lines.next();
          if (next.done) {
            if (chunk) controller.enqueue(encoder.encode(chunk));
            controller.close();
            return;
          }
          n += 1;
          let text = JSON.stringify(next.value);
          if (faults.malformedLine === n) text = text.slice(0, Math.max(1, text.length >> 1));
          // The first child line from `orphanLine` on points at an object the file does not hold.
          if (faults.orphanLine !== undefined && n >= faults.orphanLine && !orphaned && "__parentId" in next.value) {
            orphaned = true;
            text = JSON.stringify({ ...next.value, __parentId: "gid://shopify/Order/1" });
          }
          if (faults.truncateAtLine === n) {
            controller.enqueue(encoder.encode(chunk + text.slice(0, text.length >> 1)));
            controller.close();
            return;
          }
          chunk += `${text}\n`;
        }
        controller.enqueue(encoder.encode(chunk));
      },
    });
    return new HttpResponse(body, { status: 200, headers: { "Content-Type": "application/jsonl" } });
  }

  close() {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
