// Shopify's mandatory privacy webhooks: erase what the app holds about a customer, or about a whole shop.
import type { PrismaClient } from "@prisma/client";

export async function redactCustomer(prisma: PrismaClient, shop: string, customerId: string) {
  await prisma.$transaction([
    prisma.customerGrant.deleteMany({ where: { shop, customerId } }),
    prisma.oAuthState.deleteMany({ where: { shop, customerId } }),
    prisma.backfill.deleteMany({ where: { shop, customerId } }),
    prisma.syncRecord.updateMany({ where: { shop, customerId }, data: { customerId: null } }),
  ]);
}

export async function redactShop(prisma: PrismaClient, shop: string) {
  await prisma.$transaction([
    prisma.job.deleteMany({ where: { shop } }),
    prisma.syncRecord.deleteMany({ where: { shop } }),
    prisma.syncAttempt.deleteMany({ where: { shop } }),
    prisma.webhookDelivery.deleteMany({ where: { shop } }),
    prisma.backfill.deleteMany({ where: { shop } }),
    prisma.customerGrant.deleteMany({ where: { shop } }),
    prisma.oAuthState.deleteMany({ where: { shop } }),
    prisma.shopSettings.deleteMany({ where: { shop } }),
    prisma.session.deleteMany({ where: { shop } }),
  ]);
}
