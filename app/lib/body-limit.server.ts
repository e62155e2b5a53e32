// Request bodies read once, with a ceiling, and never in a way that can take the process down.
//
// Limits per route kind (docs/security.md):
// - webhooks: 5 MiB. Shopify's largest payloads are orders with many lines, fulfillments and refunds; they stay
//   well under 1 MiB in practice (Shopify itself truncates lists in webhook bodies), so 5 MiB leaves room for
//   outliers while a flood of large unauthenticated POSTs cannot exhaust memory.
// - forms: 64 KiB. The settings form and the storefront forms carry a few short fields.
// A declared Content-Length above the limit is refused before a byte is read; a body without one (chunked) is
// counted as it streams and the read stops at the first byte past the limit. An aborted or broken body is a
// rejection handled here (answered 400), never one left unhandled.

export const BODY_LIMITS = {
  webhook: 5 * 1024 * 1024,
  form: 64 * 1024,
} as const;

export type BodyKind = keyof typeof BODY_LIMITS;

/**
 * The one size check, for the app and the server (server/bodies.ts) alike: a body's declared length
 * (Content-Length, digits) or its bytes counted so far, over `limit`.
 */
export const overLimit = (size: string | number | null | undefined, limit: number): boolean =>
  size != null && Number(size) > limit;

export type BodyResult = { ok: true; bytes: Uint8Array<ArrayBuffer> } | { ok: false; response: Response };

// No Connection: close here: closing a socket with the rest of the upload unread resets the connection, and the
// client may never see this answer. The server discards what still comes, unbuffered (server/request-handler.ts).
const tooLarge = (limit: number) =>
  new Response(`Request body too large (limit ${limit} bytes)`, {
    status: 413,
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  });

const unreadable = () =>
  new Response("Request body could not be read", {
    status: 400,
    headers: { "Content-Type": "text/plain; charset=utf-8", Connection: "close" },
  });

/**
 * Bytes of a body the server already read in Node (server/direct-actions.ts: webhook deliveries, whose declared
 * length it checked against the webhook limit first), set on the Request it hands to the route; `readBody` takes
 * them instead of pulling the body through a Web stream. A registered symbol: the server's bundle and the app's
 * bundle each have their own copy of this module.
 */
export const BODY_BYTES = Symbol.for("app.body-bytes");

/** Reads the whole body, at most `limit` bytes (by kind or a number). Resolves; never rejects for the body's sake. */
export async function readBody(request: Request, kind: BodyKind | number): Promise<BodyResult> {
  const limit = typeof kind === "number" ? kind : BODY_LIMITS[kind];
  const declared = request.headers.get("content-length");
  if (declared !== null && !/^\d+$/.test(declared.trim())) return { ok: false, response: unreadable() };
  if (overLimit(declared, limit)) return { ok: false, response: tooLarge(limit) };
  const read = (request as Request & { [BODY_BYTES]?: Uint8Array<ArrayBuffer> })[BODY_BYTES];
  if (read)
    return overLimit(read.byteLength, limit) ? { ok: false, response: tooLarge(limit) } : { ok: true, bytes: read };
  if (!request.body) return { ok: true, bytes: new Uint8Array(0) };
  if (request.bodyUsed) return { ok: false, response: unreadable() };

  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (overLimit(total, limit)) {
        // Stop reading, but leave the stream alone: cancelling it would destroy the socket before the 413 is
        // written. The server discards the rest, unbuffered, and then closes (server/request-handler.ts).
        reader.releaseLock();
        return { ok: false, response: tooLarge(limit) };
      }
      chunks.push(value);
    }
  } catch {
    // The client went away mid-body (or sent garbage framing): nothing to answer to, nothing to keep.
    reader.cancel().catch(() => undefined);
    return { ok: false, response: unreadable() };
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, bytes };
}

/**
 * The same request with its body replaced by bytes already read: for APIs that want a Request (`formData()`),
 * so the body is still read from the network only once.
 */
export function withBody(request: Request, bytes: Uint8Array<ArrayBuffer>): Request {
  const headers = new Headers(request.headers);
  headers.delete("transfer-encoding");
  headers.set("content-length", String(bytes.byteLength));
  return new Request(request.url, { method: request.method, headers, body: bytes, signal: request.signal });
}

export type JsonObjectResult = { ok: true; value: Record<string, unknown> } | { ok: false; response: Response };

/**
 * The one way a route reads a JSON body: at most `limit` bytes (readBody), parsed, and a JSON object (not an
 * array, not a scalar), else a 400 `{error: "bad_request"}` (413 or 400 from readBody for the bytes themselves).
 */
export async function readJsonObject(request: Request, kind: BodyKind | number): Promise<JsonObjectResult> {
  const body = await readBody(request, kind);
  if (!body.ok) return body;
  const notAnObject = {
    ok: false as const,
    response: new Response(JSON.stringify({ error: "bad_request", message: "Send a JSON object." }), {
      status: 400,
      headers: { "Content-Type": "application/json; charset=utf-8" },
    }),
  };
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(body.bytes));
    return value && typeof value === "object" && !Array.isArray(value)
      ? { ok: true, value: value as Record<string, unknown> }
      : notAnObject;
  } catch {
    return notAnObject;
  }
}
