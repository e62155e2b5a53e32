// What the storefront stand-in (./server.ts) reads from a request: its body (at most 1 MiB), form or JSON fields,
// cookies, and a same-site return path.
import type http from "node:http";
import { CartError } from "./cart";

const MAX_BODY = 1024 * 1024;

export function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new CartError(413, "Request body too large"));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** A form or JSON body as a flat record. */
export function parseFields(body: Buffer, type: string | undefined): Record<string, unknown> {
  if (type?.includes("application/json")) {
    const parsed: unknown = JSON.parse(body.toString("utf8") || "{}");
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
      throw new CartError(400, "Expected a JSON object");
    return parsed as Record<string, unknown>;
  }
  return Object.fromEntries(new URLSearchParams(body.toString("utf8")));
}

export const cookies = (req: http.IncomingMessage) =>
  Object.fromEntries(
    (req.headers.cookie ?? "")
      .split(";")
      .map((c) => c.trim().split("="))
      .filter((p) => p.length === 2),
  ) as Record<string, string>;

/** A same-site path to go back to after signing in, else the account page. */
export const safeReturn = (value: unknown) =>
  typeof value === "string" && value.startsWith("/") && !value.startsWith("//") && !value.includes("\\")
    ? value
    : "/account";
