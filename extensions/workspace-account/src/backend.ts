// Calls to the app's /customer-account/* routes with the session token Shopify gives the extension (the backend
// takes shop and customer from it, never from anything sent here). Every failure becomes one of a few kinds the
// blocks put in plain words; nothing from an unexpected answer is shown.

/**
 * The app's URL, as Shopify's CLI puts it in the bundle: the CLI replaces `process.env.APP_URL` with its value when
 * it bundles a UI extension (`shopify app dev`: the tunnel's URL; `npm run deploy`: the application_url of
 * shopify.app.toml, scripts/shopify-cli.ts). A bundle made without it has no `process`: every call is then "unavailable".
 */
export function appUrl(): string | null {
  try {
    const url = process.env.APP_URL;
    return typeof url === "string" && /^https?:\/\/[^/]/.test(url) ? url.replace(/\/+$/, "") : null;
  } catch {
    return null;
  }
}

export interface TokenSource {
  sessionToken: { get(): Promise<string> };
}

export type Answer<T> =
  | { ok: true; body: T }
  | { ok: false; kind: "unavailable" | "refused"; status?: number; body?: Record<string, unknown> };

const TIMEOUT_MS = 15_000;

export async function callBackend<T>(
  api: TokenSource,
  path: string,
  body?: Record<string, unknown>,
): Promise<Answer<T>> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
  try {
    const base = appUrl();
    if (!base) return { ok: false, kind: "unavailable" };
    const token = await api.sessionToken.get();
    const res = await fetch(`${base}${path}`, {
      method: body ? "POST" : "GET",
      headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: controller.signal,
    });
    let parsed: unknown = null;
    try {
      parsed = await res.json();
    } catch {
      parsed = null;
    }
    const object =
      parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
    if (res.ok && object) return { ok: true, body: object as T };
    if (res.status >= 500 || !object) return { ok: false, kind: "unavailable", status: res.status };
    return { ok: false, kind: "refused", status: res.status, body: object };
  } catch {
    return { ok: false, kind: "unavailable" };
  } finally {
    clearTimeout(timer);
  }
}
