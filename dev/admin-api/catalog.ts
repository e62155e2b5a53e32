// A small catalog for the Admin API stand-in: a few products and variants with prices as Shopify gives them
// (decimal strings in the shop's currency). Tests and the demo change it (delete a variant, stop selling one).

export interface CatalogVariant {
  /** Numeric id, as the storefront's /cart.js gives it. */
  id: string;
  productId: string;
  productTitle: string;
  /** "Default Title" for a product without options, as Shopify names it. */
  title: string;
  sku: string;
  price: string;
  availableForSale: boolean;
  productStatus: "ACTIVE" | "DRAFT" | "ARCHIVED";
  /** Published to the online store sales channel (default true). */
  published?: boolean;
}

/** A market of Shopify Markets: the countries it serves, its currency and its own price list. */
export interface CatalogMarket {
  countries: string[];
  currency: string;
  /** Variant id → price in the market's currency (a variant not listed: the base price, as a fallback). */
  prices: Record<string, string>;
  /** Variant id → an automatic discount's percentage off, in this market. */
  automaticDiscountPercent?: Record<string, number>;
}

export interface Catalog {
  currency: string;
  variants: Map<string, CatalogVariant>;
  markets?: CatalogMarket[];
}

export function createCatalog(): Catalog {
  const variants: CatalogVariant[] = [
    {
      id: "41000000001",
      productId: "8000000001",
      productTitle: "Blue mug",
      title: "Default Title",
      sku: "MUG-BLUE",
      price: "12.50",
      availableForSale: true,
      productStatus: "ACTIVE",
    },
    {
      id: "41000000002",
      productId: "8000000002",
      productTitle: "Tea tin",
      title: "Large",
      sku: "TEA-L",
      price: "8.00",
      availableForSale: true,
      productStatus: "ACTIVE",
    },
    {
      id: "41000000003",
      productId: "8000000002",
      productTitle: "Tea tin",
      title: "Small",
      sku: "TEA-S",
      price: "4.95",
      availableForSale: true,
      productStatus: "ACTIVE",
    },
    {
      id: "41000000004",
      productId: "8000000003",
      productTitle: "Linen apron",
      title: "Default Title",
      sku: "",
      price: "29.00",
      availableForSale: true,
      productStatus: "ACTIVE",
    },
  ];
  return { currency: "EUR", variants: new Map(variants.map((v) => [v.id, v])) };
}

/** Many distinct variants (for carts near the 200-line limit). */
export function addFillerVariants(catalog: Catalog, count: number): string[] {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = String(42_000_000_000 + i);
    catalog.variants.set(id, {
      id,
      productId: String(9_000_000_000 + i),
      productTitle: `Sample ${i + 1}`,
      title: "Default Title",
      sku: `SAMPLE-${i + 1}`,
      price: "1.00",
      availableForSale: true,
      productStatus: "ACTIVE",
    });
    ids.push(id);
  }
  return ids;
}

export function displayTitle(v: CatalogVariant) {
  return v.title === "Default Title" ? v.productTitle : `${v.productTitle} - ${v.title}`;
}
