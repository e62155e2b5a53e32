// The admin-token route (/api/order-block, the order page block's backend) over HTTP: only a staff session token of
// a shop gets in. Every other token Shopify signs with the app's secret (a shopper's customer account token) or
// one shaped wrongly is a 401 with CORS headers in the route's JSON shape, never a 500 with a stack trace.
import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { CHROME_USER_AGENT } from "../helpers/browser";
import { withHarness } from "../helpers/harness";
import { mintCustomerToken, mintSessionToken, TEST_API_KEY, TEST_API_SECRET, TEST_SHOP } from "../helpers/shopify";

const h = withHarness({ app: {} });

/** A token signed with the app's secret (so only its claims are wrong), as an admin token would be minted. */
function signed(claims: Record<string, unknown>) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    dest: `https://${TEST_SHOP}`,
    iss: `https://${TEST_SHOP}/admin`,
    aud: TEST_API_KEY,
    sub: "1",
    sid: randomUUID(),
    ...claims,
  })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuedAt(now - 5)
    .setNotBefore(now - 5)
    .setExpirationTime(now + 300)
    .setJti(randomUUID())
    .sign(new TextEncoder().encode(TEST_API_SECRET));
}

const call = (token: string, method = "GET") =>
  fetch(`${h.app.url}/api/order-block?order=gid://shopify/Order/1`, {
    method,
    headers: {
      Origin: "https://extensions.shopifycdn.com",
      "User-Agent": CHROME_USER_AGENT,
      Authorization: `Bearer ${token}`,
      ...(method === "POST" ? { "Content-Type": "application/json" } : {}),
    },
    body: method === "POST" ? JSON.stringify({ intent: "retry", recordId: "x" }) : undefined,
  });

describe("/api/order-block", () => {
  it("a shopper's customer account token, and tokens that are not a shop's staff token: 401 with CORS, never a 500", async () => {
    const tokens: [string, string][] = [
      ["a customer account token", await mintCustomerToken("42")],
      ["a bare dest", await signed({ dest: TEST_SHOP })],
      ["dest not a URL at all", await signed({ dest: "::" })],
      ["iss of another shop", await signed({ iss: "https://other-shop.myshopify.com/admin" })],
      ["no iss", await signed({ iss: undefined })],
      ["a customer as sub", await signed({ sub: "gid://shopify/Customer/42" })],
      ["no sub", await signed({ sub: undefined })],
      ["another app's audience", await signed({ aud: "another-app" })],
    ];
    for (const [label, token] of tokens) {
      for (const method of ["GET", "POST"]) {
        const response = await call(token, method);
        expect(response.status, `${label} (${method})`).toBe(401);
        expect(response.headers.get("access-control-allow-origin"), label).toBe("*");
        expect(await response.json(), label).toMatchObject({ error: "unauthorized" });
      }
    }
  });

  it("a staff token of the shop still gets in", async () => {
    const response = await call(await mintSessionToken(TEST_SHOP));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "unknown", paused: false });
  });
});
