// Small node:http helpers: bounded body reading, JSON/HTML answers, form parsing, HTML escaping.
import type { IncomingMessage, ServerResponse } from "node:http";

/** docs/service.md, "Size limits": bodies over 1 MiB get 413 before any other check. */
export const MAX_BODY_BYTES = 1024 * 1024;

export type Headers = Record<string, string>;

/** A finished answer, built by the handlers and written by the server (so faults and logging see it). */
export interface Reply {
  status: number;
  headers: Headers;
  body: string;
  /** The stable error code of an error answer, for the request log. */
  error?: string | null;
  replayed?: boolean;
  /** For the request log: the merchant's external id and the workspace, when known. */
  externalId?: string | null;
  workspaceId?: string | null;
}

export interface ReadBody {
  bytes: Buffer;
  tooLarge: boolean;
}

/**
 * Reads the whole body but keeps at most MAX_BODY_BYTES: the rest is drained and dropped, so the client can
 * still read our 413 instead of seeing a reset connection.
 */
export function readBody(req: IncomingMessage): Promise<ReadBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        tooLarge = true;
        chunks.length = 0;
      } else {
        chunks.push(chunk);
      }
    });
    req.on("end", () => resolve({ bytes: tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks), tooLarge }));
    req.on("error", reject);
  });
}

export function json(status: number, value: unknown, headers: Headers = {}): Reply {
  return { status, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(value) };
}

/** An error answer `{"error": code, "message"?}` (docs/service.md, "Errors"). */
export function errorReply(status: number, error: string, message?: string, headers: Headers = {}): Reply {
  const body: { error: string; message?: string } = { error };
  if (message) body.message = message;
  return { ...json(status, body, headers), error };
}

export function html(status: number, page: string, headers: Headers = {}): Reply {
  return { status, headers: { "content-type": "text/html; charset=utf-8", ...headers }, body: page };
}

export function redirect(location: string): Reply {
  return { status: 302, headers: { location, "cache-control": "no-store" }, body: "" };
}

export function send(res: ServerResponse, reply: Reply): void {
  const body = Buffer.from(reply.body, "utf8");
  res.writeHead(reply.status, { ...reply.headers, "content-length": String(body.length) });
  res.end(body);
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** A minimal, self-contained HTML document. */
export function page(title: string, bodyHtml: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}
fieldset{margin:1rem 0}button{margin-right:.5rem}</style></head>
<body>
<h1>${escapeHtml(title)}</h1>
${bodyHtml}
</body></html>`;
}

/** The media type of a Content-Type header, lowercased, without parameters. */
export function mediaType(req: IncomingMessage): string {
  return (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
}

/** One header's value; a repeated header counts as absent-or-malformed, so callers see `undefined`. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === "string" ? value : undefined;
}

/** Query or form parameters; each name maps to all its values in order. */
export type Params = Map<string, string[]>;

export function parseParams(search: string): Params {
  const params: Params = new Map();
  for (const [key, value] of new URLSearchParams(search)) {
    const list = params.get(key);
    if (list) list.push(value);
    else params.set(key, [value]);
  }
  return params;
}

/** Form body of an application/x-www-form-urlencoded request; any other body gives no parameters. */
export function parseForm(req: IncomingMessage, bytes: Buffer): Params {
  if (mediaType(req) !== "application/x-www-form-urlencoded") return new Map();
  return parseParams(bytes.toString("utf8"));
}

/**
 * RFC 6749 3.1/3.2: a parameter sent without a value is treated as omitted, and none may be repeated.
 * Returns undefined when absent or empty, and `null` when repeated.
 */
export function single(params: Params, name: string): string | undefined | null {
  const values = (params.get(name) ?? []).filter((v) => v !== "");
  if (values.length > 1) return null;
  return values[0];
}

/** Parses a JSON body strictly (UTF-8, JSON text); `undefined` for a zero-length body, which counts as absent. */
export function parseJsonBody(bytes: Buffer): { ok: true; value: unknown } | { ok: false } {
  if (bytes.length === 0) return { ok: true, value: undefined };
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** docs/service.md, "Idempotency keys": 1 to 255 visible ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
export function isValidIdempotencyKey(key: string | undefined): key is string {
  return key !== undefined && IDEMPOTENCY_KEY.test(key);
}

/** A string field of a parsed JSON object, best effort (for the request log). */
export function stringField(value: unknown, field: string): string | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const v = (value as Record<string, unknown>)[field];
  return typeof v === "string" ? v : null;
}
