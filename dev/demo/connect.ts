// Connects a demo customer's workspace the way a shopper does, over HTTP through the stand-in for Shopify: the
// storefront's connect form (app proxy), the emulator's consent page (approve, first workspace), the app's OAuth
// callback, and the store's completion step. The app stores the grant itself and starts the customer's backfill.
import { PROXY_PREFIX } from "../shopify/app-proxy";

const MAX_HOPS = 6;

function hiddenInputs(html: string): URLSearchParams {
  const form = new URLSearchParams();
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    form.append(m[1], decodeEntities(m[2]));
  const workspace = /name="workspace_id" value="([^"]+)"/.exec(html);
  if (workspace) form.set("workspace_id", decodeEntities(workspace[1]));
  return form;
}

const decodeEntities = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/** `proxyPath`: the store's app proxy path (the stand-in's proxyPrefix). */
export async function connectDemoCustomer(
  storeUrl: string,
  customer: { id: string; name: string; email: string },
  proxyPath = PROXY_PREFIX,
): Promise<void> {
  const cookie = `customer_id=${customer.id}`;
  // The page first: its form carries the customer's CSRF token (who they are comes from Shopify's signed proxy
  // parameters, their name from the Admin API).
  const page = await fetch(new URL(`${proxyPath}/connect`, storeUrl), { headers: { cookie } });
  const token = /name="csrf_token" value="([^"]+)"/.exec(await page.text())?.[1];
  if (!token) throw new Error(`the connect page (${page.status}) has no form to start from`);
  const start = await fetch(new URL(`${proxyPath}/connect`, storeUrl), {
    method: "POST",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrf_token: decodeEntities(token) }),
    redirect: "manual",
  });
  await start.body?.cancel();
  const authorize = start.headers.get("location");
  if (start.status !== 302 || !authorize)
    throw new Error(`the connect page answered ${start.status}, not a redirect to the service`);

  const consent = await fetch(authorize);
  if (consent.status !== 200) throw new Error(`the emulator's consent page answered ${consent.status}`);
  const form = hiddenInputs(await consent.text());
  form.set("decision", "approve");
  const approved = await fetch(new URL("/oauth/authorize", authorize), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form,
    redirect: "manual",
  });
  await approved.body?.cancel();

  // Callback (the app's domain) → completion step (the store) → connect page with the result.
  let next = approved.headers.get("location");
  for (let hop = 0; next && hop < MAX_HOPS; hop++) {
    const url = new URL(next, storeUrl);
    if (url.searchParams.get("result")) {
      if (url.searchParams.get("result") !== "connected")
        throw new Error(`connecting the demo customer ended with ${url.searchParams.get("result")}`);
      return;
    }
    const response = await fetch(url, { headers: { cookie }, redirect: "manual" });
    await response.body?.cancel();
    next = response.headers.get("location");
  }
  throw new Error("connecting the demo customer did not come back to the store");
}
