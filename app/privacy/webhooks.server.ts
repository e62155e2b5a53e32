// The lifecycle and privacy webhook routes' shared path: app/shopify/webhook.server.ts verifies the body, HMAC, topic
// and shop (refused before anything changes), then plain data goes to the domain functions. None of them needs a
// session, so each works after an uninstall. Each delivery acts once (receipts by event id, and for destructive
// topics by the signed content too, so a captured body replayed under new ids repeats nothing).
import type { PrismaClient } from "@prisma/client";
import { sha256 } from "../lib/hash";
import { webhookDeliveries } from "../lib/metrics.server";
import { securityLog } from "../lib/security-log.server";
import { topicLabel, verifyWebhook, type VerifiedWebhook } from "../shopify/webhook.server";
import { redactCustomer, redactShop } from "./compliance.server";
import { recordDataRequest } from "./export.server";
import { onAppUninstalled, onScopesUpdated } from "./lifecycle.server";
import { kickRevocations } from "../connections/revocations.server";

type Payload = Record<string, unknown>;
type Verified = { shop: string; topic: string; payload: Payload; eventId: string; webhookId: string };

const idList = (value: unknown): string[] =>
  Array.isArray(value)
    ? value
        .filter((v) => typeof v === "string" || typeof v === "number")
        .map(String)
        .slice(0, 10_000)
    : [];
const idOf = (value: unknown): string | undefined =>
  typeof value === "string" || typeof value === "number" ? String(value) : undefined;

interface HandleOptions {
  /** Also deduplicate by the signed body (destructive topics). */
  byContent?: boolean;
  /**
   * shop/redact: Shopify sends it 48 hours after an uninstall, never while the app is installed, and its body is the
   * same every time, so content cannot tell a replay apart: an installed shop (offline session present) erases nothing.
   */
  notWhileInstalled?: boolean;
}

class Duplicate extends Error {}

interface Receipt {
  /** Undo the claim when the action failed, so Shopify's retry can do it. */
  release(): Promise<void>;
}

/**
 * Claims the delivery: null when it was acted on before (same event id, or with `byContent` the same signed body
 * under any id), which is logged. Claim before acting; release on failure.
 */
async function claimWebhook(
  db: PrismaClient,
  webhook: VerifiedWebhook,
  options: { byContent?: boolean },
): Promise<Receipt | null> {
  const keys = [`event:${webhook.shop}:${webhook.topic}:${webhook.eventId}`];
  if (options.byContent) keys.push(`content:${sha256([webhook.topic, "\n", webhook.bytes])}`);
  const data = keys.map((key) => ({ key, shop: webhook.shop, topic: webhook.topic }));
  try {
    await db.$transaction(async (tx) => {
      const { count } = await tx.webhookReceipt.createMany({ data, skipDuplicates: true });
      if (count !== keys.length) throw new Duplicate(); // rolls back the keys this call did insert
    });
  } catch (err) {
    if (!(err instanceof Duplicate)) throw err;
    securityLog().info(
      { shop: webhook.shop, topic: webhook.topic, reason: "duplicate_delivery" },
      "webhook already handled",
    );
    return null;
  }
  return { release: () => db.webhookReceipt.deleteMany({ where: { key: { in: keys } } }).then(() => undefined) };
}

/** Runs `action` once per delivery (see claimWebhook); a failed action is released for Shopify's retry. */
async function actOnce(
  prisma: PrismaClient,
  webhook: VerifiedWebhook,
  options: { byContent?: boolean },
  action: () => Promise<unknown>,
): Promise<boolean> {
  const receipt = await claimWebhook(prisma, webhook, options);
  if (!receipt) return false;
  try {
    await action();
  } catch (err) {
    await receipt.release().catch(() => undefined);
    throw err;
  }
  return true;
}

// The offline session Shopify's library stores at install (its id is `offline_<shop>`): present while installed.
const isInstalled = async (prisma: PrismaClient, shop: string) =>
  (await prisma.session.count({ where: { id: `offline_${shop}` } })) > 0;

/** Verifies, then runs `work` once per delivery; a failure is released for Shopify's retry. */
async function handle(
  prisma: PrismaClient,
  request: Request,
  routeTopic: string,
  options: HandleOptions,
  work: (event: Verified) => Promise<void>,
) {
  const check = await verifyWebhook(request, routeTopic);
  if (!check.ok) return check.response;
  const webhook = check.webhook;
  const topic = topicLabel(routeTopic);
  if (options.notWhileInstalled && (await isInstalled(prisma, webhook.shop))) {
    securityLog().warn(
      { shop: webhook.shop, topic: webhook.topic, webhookId: webhook.webhookId, reason: "shop_installed" },
      "webhook ignored",
    );
    webhookDeliveries.series(topic, "ignored", "").inc();
    return new Response(null, { status: 200 });
  }
  const payload = (webhook.payload ?? {}) as Payload;
  const event: Verified = {
    shop: webhook.shop,
    topic: webhook.topic,
    payload,
    eventId: webhook.eventId,
    webhookId: webhook.webhookId,
  };
  const acted = await actOnce(prisma, webhook, { byContent: options.byContent }, () => work(event));
  webhookDeliveries.series(topic, acted ? "accepted" : "duplicate", "").inc();
  return new Response(null, { status: 200 });
}

export const receiveCustomersRedact = (prisma: PrismaClient, request: Request) =>
  handle(prisma, request, "customers/redact", { byContent: true }, async ({ shop, payload }) => {
    const customerId = idOf((payload.customer as Payload | undefined)?.id);
    const ordersToRedact = idList(payload.orders_to_redact);
    if (!customerId && ordersToRedact.length === 0) return;
    await redactCustomer(prisma, { shop, customerId: customerId ?? "", ordersToRedact });
    kickRevocations(prisma);
  });

export const receiveDataRequest = (prisma: PrismaClient, request: Request) =>
  handle(prisma, request, "customers/data_request", {}, async ({ shop, payload, eventId }) => {
    const customerId = idOf((payload.customer as Payload | undefined)?.id);
    if (!customerId) return;
    const requestId = idOf((payload.data_request as Payload | undefined)?.id) ?? eventId;
    await recordDataRequest(prisma, { shop, customerId, requestId, ordersRequested: idList(payload.orders_requested) });
  });

export const receiveShopRedact = (prisma: PrismaClient, request: Request) =>
  handle(prisma, request, "shop/redact", { notWhileInstalled: true }, async ({ shop }) => {
    await redactShop(prisma, shop);
    kickRevocations(prisma);
  });

export const receiveAppUninstalled = (prisma: PrismaClient, request: Request) =>
  handle(prisma, request, "app/uninstalled", { byContent: true }, ({ shop }) => onAppUninstalled(prisma, shop));

export const receiveScopesUpdate = (prisma: PrismaClient, request: Request) =>
  handle(prisma, request, "app/scopes_update", { byContent: true }, async ({ shop, payload }) => {
    await onScopesUpdated(prisma, shop, payload.current);
  });
