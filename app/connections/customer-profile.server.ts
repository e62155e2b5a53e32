// The name and email the admin shows for a connected customer come from Shopify (the Admin API), never from what
// the storefront submitted: a shopper can put anything in a form field. Fetched when the customer connects; a
// failure leaves the grant without a name (the admin then shows the customer id) and never fails the connection.
import type { PrismaClient } from "@prisma/client";
import type { AdminGraphql } from "../shopify/admin-api.server";

export const CUSTOMER_PROFILE_QUERY = `#graphql
query CustomerProfile($id: ID!) {
  customer(id: $id) { displayName defaultEmailAddress { emailAddress } }
}`;

interface ProfileAnswer {
  data?: {
    customer?: { displayName?: string | null; defaultEmailAddress?: { emailAddress?: string | null } | null } | null;
  };
}

// eslint-disable-next-line no-control-regex -- removing control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]+/g;

// One line, bounded: it is shown in the admin.
const label = (value: unknown, max: number) =>
  typeof value === "string" ? value.replace(CONTROL_CHARACTERS, " ").trim().slice(0, max) || null : null;

/** Returns whether a profile was stored; logs (ids only) when Shopify could not say. */
export async function recordCustomerProfile(
  prisma: PrismaClient,
  grant: { shop: string; customerId: string },
  deps: { adminGraphql: AdminGraphql; log?: (event: string, facts: Record<string, unknown>) => void },
): Promise<boolean> {
  try {
    const answer = (await deps.adminGraphql(grant.shop, CUSTOMER_PROFILE_QUERY, {
      id: `gid://shopify/Customer/${grant.customerId}`,
    })) as ProfileAnswer;
    const customer = answer?.data?.customer;
    if (!customer) throw new Error("no customer in the answer");
    await prisma.customerGrant.updateMany({
      where: grant,
      data: {
        customerName: label(customer.displayName, 200),
        customerEmail: label(customer.defaultEmailAddress?.emailAddress, 320),
      },
    });
    return true;
  } catch (err) {
    deps.log?.("customer_profile_unavailable", {
      shop: grant.shop,
      customerId: grant.customerId,
      error: err instanceof Error ? err.name : "unknown",
    });
    return false;
  }
}
