// Every webhooks.* route starts here. The HMAC (checked by Shopify's library) covers the body only, so the rest
// is checked too: the topic header must be the route's topic, and a body that names a shop must name the shop of
// the X-Shopify-Shop-Domain header. Bodies are read once, bounded (body-limit.server.ts), and the library is given
// a Request rebuilt from those bytes. Receipts make a delivery act once: by event id for every topic, and by the
// signed content for destructive topics, so a captured body replayed under fresh ids repeats nothing.
import { createHash } from "node:crypto";
import type { Session } from "@shopify/shopify-api";
import prisma from "../db.server";
import { authenticate } from "../shopify.server";
import { readBody, withBody } from "../lib/body-limit.server";
import { securityLog } from "../lib/security-log.server";

export interface VerifiedWebhook {
  shop: string;
  /** Normalised, e.g. "ORDERS_CREATE". */
  topic: string;
  /** X-Shopify-Event-Id, or the webhook id when there is none (both stable across Shopify's retries). */
  eventId: string;
  webhookId: string;
  /** Parsed by Shopify's library (numbers as JavaScript numbers). */
  payload: unknown;
  /** The signed bytes, for callers that parse them their own way. */
  bytes: Uint8Array<ArrayBuffer>;
  session: Session | undefined;
}

export type WebhookCheck = { ok: true; webhook: VerifiedWebhook } | { ok: false; response: Response };

/** "orders/create", "ORDERS_CREATE" and "orders_create" alike. */
export const normalizeTopic = (topic: string) => topic.trim().toUpperCase().replace(/[/.]/g, "_");

// Answered like a bad signature (no detail): the sender is not Shopify, or Shopify's configuration is broken.
const refused = () => new Response(null, { status: 400 });

/**
 * Reads and verifies a webhook for the route's topic. A bad HMAC throws Shopify's 401 response (Remix answers it);
 * every other refusal comes back as `{ ok: false, response }` and is logged.
 */
export async function verifyWebhook(request: Request, routeTopic: string): Promise<WebhookCheck> {
  const body = await readBody(request, "webhook");
  if (!body.ok) return body;
  const ctx = await authenticate.webhook(withBody(request, body.bytes));
  const topic = normalizeTopic(ctx.topic);
  const expected = normalizeTopic(routeTopic);
  if (topic !== expected) {
    securityLog().warn({ shop: ctx.shop, topic, route: expected, reason: "topic_mismatch" }, "webhook refused");
    return { ok: false, response: refused() };
  }
  const named = shopNamedIn(ctx.payload);
  if (named !== undefined && named !== ctx.shop) {
    securityLog().warn({ shop: ctx.shop, topic, reason: "shop_mismatch" }, "webhook refused");
    return { ok: false, response: refused() };
  }
  return {
    ok: true,
    webhook: {
      shop: ctx.shop,
      topic,
      eventId: ctx.eventId || ctx.webhookId,
      webhookId: ctx.webhookId,
      payload: ctx.payload,
      bytes: body.bytes,
      session: ctx.session,
    },
  };
}

// Compliance bodies carry shop_domain; app/uninstalled's (the shop object) carries myshopify_domain.
function shopNamedIn(payload: unknown): string | undefined {
  if (!payload || typeof payload !== "object") return undefined;
  const p = payload as Record<string, unknown>;
  for (const field of ["shop_domain", "myshopify_domain"]) if (field in p) return String(p[field]).toLowerCase();
  return undefined;
}

class Duplicate extends Error {}

export interface Receipt {
  /** Undo the claim when the action failed, so Shopify's retry can do it. */
  release(): Promise<void>;
}

/**
 * Claims the delivery: null when it was acted on before (same event id, or with `byContent` the same signed body
 * under any id), which is logged. Claim before acting; release on failure.
 */
async function claimWebhook(webhook: VerifiedWebhook, options: { byContent?: boolean } = {}): Promise<Receipt | null> {
  const keys = [`event:${webhook.shop}:${webhook.topic}:${webhook.eventId}`];
  if (options.byContent) {
    const hash = createHash("sha256").update(webhook.topic).update("\n").update(webhook.bytes).digest("hex");
    keys.push(`content:${hash}`);
  }
  const data = keys.map((key) => ({ key, shop: webhook.shop, topic: webhook.topic }));
  try {
    await prisma.$transaction(async (tx) => {
      const { count } = await tx.webhookReceipt.createMany({ data, skipDuplicates: true });
      if (count !== keys.length) throw new Duplicate(); // rolls back the keys this call did insert
    });
  } catch (err) {
    if (!(err instanceof Duplicate)) throw err;
    securityLog().info({ shop: webhook.shop, topic: webhook.topic, reason: "duplicate_delivery" }, "webhook already handled");
    return null;
  }
  return { release: () => prisma.webhookReceipt.deleteMany({ where: { key: { in: keys } } }).then(() => undefined) };
}

/** Runs `action` once per delivery (see claimWebhook); a failed action is released for Shopify's retry. */
export async function actOnce(
  webhook: VerifiedWebhook,
  options: { byContent?: boolean },
  action: () => Promise<unknown>,
): Promise<boolean> {
  const receipt = await claimWebhook(webhook, options);
  if (!receipt) return false;
  try {
    await action();
  } catch (err) {
    await receipt.release().catch(() => undefined);
    throw err;
  }
  return true;
}
