// Shared by the privacy tests: a shopper's contact data as Shopify puts it into order and fulfillment webhooks,
// and a search of every text and JSON column of every table for a value.
import type { PrismaClient } from "@prisma/client";
import { shopifyFulfillment, shopifyOrder } from "../sync/support";

export interface Shopper {
  id: number;
  email: string;
  phone: string;
  firstName: string;
  lastName: string;
  street: string;
  ip: string;
}

let n = 0;
export function newShopper(): Shopper {
  n += 1;
  return {
    id: 7_100_000_000 + n,
    email: `grace.hopper${n}@navy.example`,
    phone: `+1555010${String(n).padStart(4, "0")}`,
    firstName: "Grace",
    lastName: `Hopperly${n}`,
    street: `${n} Cobol Lane`,
    ip: `203.0.113.${n}`,
  };
}

const address = (s: Shopper) => ({
  first_name: s.firstName,
  last_name: s.lastName,
  name: `${s.firstName} ${s.lastName}`,
  address1: s.street,
  address2: "Apt 7",
  city: "Arlington",
  zip: "22201",
  province: "Virginia",
  country: "United States",
  phone: s.phone,
  company: "US Navy",
  latitude: 38.88,
  longitude: -77.1,
});

/** An orders/create payload carrying everything Shopify may send about the shopper. */
export function orderWithContactData(s: Shopper, overrides: Record<string, unknown> = {}) {
  const order = shopifyOrder(overrides);
  return {
    ...order,
    email: s.email,
    contact_email: s.email,
    phone: s.phone,
    browser_ip: s.ip,
    note: `Please call ${s.firstName} at ${s.phone}`,
    note_attributes: [{ name: "gift message", value: `For ${s.firstName} ${s.lastName}` }],
    client_details: { browser_ip: s.ip, user_agent: "Mozilla/5.0", accept_language: "en" },
    billing_address: address(s),
    shipping_address: address(s),
    customer: {
      id: s.id,
      email: s.email,
      phone: s.phone,
      first_name: s.firstName,
      last_name: s.lastName,
      note: `VIP ${s.email}`,
      default_address: address(s),
    },
    line_items: order.line_items.map((line) => ({
      ...line,
      properties: [{ name: "Engraving", value: `${s.firstName} ${s.lastName}` }],
    })),
    ...overrides,
  };
}

export function fulfillmentWithContactData(s: Shopper, order: ReturnType<typeof orderWithContactData>) {
  return {
    ...shopifyFulfillment(order as unknown as ReturnType<typeof shopifyOrder>),
    email: s.email,
    destination: address(s),
  };
}

/** "Table.column" for every text or JSON column of every table in which `needle` occurs (case-insensitive). */
export async function findEverywhere(prisma: PrismaClient, needle: string): Promise<string[]> {
  const columns = await prisma.$queryRaw<{ table_name: string; column_name: string }[]>`
    SELECT table_name::text AS table_name, column_name::text AS column_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name <> '_prisma_migrations'
      AND data_type IN ('text', 'character varying', 'json', 'jsonb')`;
  const hits: string[] = [];
  for (const { table_name, column_name } of columns) {
    const rows = await prisma.$queryRawUnsafe<{ n: bigint }[]>(
      `SELECT count(*) AS n FROM "${table_name}" WHERE "${column_name}"::text ILIKE '%' || $1 || '%'`,
      needle,
    );
    if (Number(rows[0].n) > 0) hits.push(`${table_name}.${column_name}`);
  }
  return hits;
}
