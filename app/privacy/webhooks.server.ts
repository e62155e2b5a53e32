// The lifecycle and privacy webhook routes' shared path: Shopify's library verifies the HMAC (401 otherwise, before
// anything is read or changed), then plain data goes to the domain functions. None of them needs a session, so
// each works after an uninstall. A redelivery of an event already handled (same event id) changes nothing: the
// delivery row is recorded after the work, with no payload (the work's own rows say what was done).
import type { PrismaClient } from "@prisma/client";
import prisma from "../db.server";
import { recordDelivery } from "../sync/intake.server";
import { verifyWebhook } from "../sync/webhook.server";
import { redactCustomer, redactShop } from "./compliance.server";
import { recordDataRequest } from "./export.server";
import { onAppUninstalled, onScopesUpdated } from "./lifecycle.server";
import { kickRevocations } from "./revocations.server";

type Payload = Record<string, unknown>;
type Verified = { shop: string; topic: string; payload: Payload; eventId: string; webhookId: string };

const idList = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v) => typeof v === "string" || typeof v === "number").map(String).slice(0, 10_000) : [];
const idOf = (value: unknown): string | undefined =>
  typeof value === "string" || typeof value === "number" ? String(value) : undefined;

async function alreadyHandled(db: PrismaClient, shop: string, eventId: string) {
  return Boolean(await db.webhookDelivery.findUnique({ where: { shop_eventId: { shop, eventId } }, select: { id: true } }));
}

/** Verifies, skips a redelivery, runs `work`, then records the event (unless `record` is false). */
async function handle(request: Request, work: (event: Verified) => Promise<void>, options: { record?: boolean } = {}) {
  const { shop, topic, payload, webhookId, eventId } = await verifyWebhook(request);
  const event: Verified = { shop, topic, payload: (payload ?? {}) as Payload, webhookId, eventId: eventId || webhookId };
  if (await alreadyHandled(prisma, shop, event.eventId)) return new Response(null, { status: 200 });
  await work(event);
  if (options.record !== false) {
    await recordDelivery(prisma, { shop, topic, eventId: event.eventId, webhookId, payload: {} });
  }
  return new Response(null, { status: 200 });
}

export const receiveCustomersRedact = (request: Request) =>
  handle(request, async ({ shop, payload }) => {
    const customerId = idOf((payload.customer as Payload | undefined)?.id);
    const ordersToRedact = idList(payload.orders_to_redact);
    if (!customerId && ordersToRedact.length === 0) return;
    await redactCustomer(prisma, { shop, customerId: customerId ?? "", ordersToRedact });
    kickRevocations(prisma);
  });

export const receiveDataRequest = (request: Request) =>
  handle(request, async ({ shop, payload, eventId }) => {
    const customerId = idOf((payload.customer as Payload | undefined)?.id);
    if (!customerId) return;
    const requestId = idOf((payload.data_request as Payload | undefined)?.id) ?? eventId;
    await recordDataRequest(prisma, { shop, customerId, requestId, ordersRequested: idList(payload.orders_requested) });
  });

// Not recorded afterwards: that row would be the one thing left of the shop. A redelivery finds nothing to delete.
export const receiveShopRedact = (request: Request) =>
  handle(
    request,
    async ({ shop }) => {
      await redactShop(prisma, shop);
      kickRevocations(prisma);
    },
    { record: false },
  );

export const receiveAppUninstalled = (request: Request) => handle(request, ({ shop }) => onAppUninstalled(prisma, shop));

export const receiveScopesUpdate = (request: Request) =>
  handle(request, async ({ shop, payload }) => {
    await onScopesUpdated(prisma, shop, payload.current);
  });
