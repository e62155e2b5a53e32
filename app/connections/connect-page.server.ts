// The storefront "Connect your workspace" page, as Liquid for the app proxy (Shopify renders it inside the theme).
// Everything dynamic is HTML-escaped and has its braces turned into entities, so no stored value can become
// Liquid code. The form carries the customer's CSRF token and nothing about the shopper: who they are comes from
// Shopify's signed proxy parameters, their name from the Admin API.
import { CSRF_FIELD } from "../lib/csrf.server";
import { RESULT_MESSAGES, type ConnectResultCode } from "./oauth-flow.server";

export interface ConnectPageInput {
  prefix: string;
  configured: boolean;
  result: ConnectResultCode | null;
  connection: { workspaceId: string; scopes: string[]; status: "active" | "needs_reconnect"; connectedAt: string } | null;
  /** For the form (app/lib/csrf.server.ts). */
  csrfToken: string;
}

export function escapeForLiquid(value: string): string {
  return value
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;")
    .replace(/\{/g, "&#123;")
    .replace(/\}/g, "&#125;")
    .replace(/%/g, "&#37;");
}

const SCOPE_WORDS: Record<string, string> = {
  "orders:write": "orders",
  "shipments:write": "shipments",
};

export function renderConnectPage(input: ConnectPageInput): string {
  const e = escapeForLiquid;
  const parts: string[] = [];
  if (input.result) {
    const good = input.result === "connected";
    parts.push(
      `<p class="connect-workspace__result" role="status" data-result="${e(input.result)}" style="padding:12px;border-radius:6px;background:${good ? "#e3f1df" : "#fbeae5"}">${e(RESULT_MESSAGES[input.result])}</p>`,
    );
  }
  const c = input.connection;
  if (c && c.status === "active") {
    const scopes = c.scopes.map((s) => SCOPE_WORDS[s] ?? s).join(" and ");
    parts.push(
      `<p data-status="connected">Connected to workspace <strong>${e(c.workspaceId)}</strong> since ${e(c.connectedAt.slice(0, 10))}. This store may add your ${e(scopes)} to it.</p>`,
    );
  } else if (c) {
    parts.push(
      `<p data-status="needs_reconnect">Your workspace <strong>${e(c.workspaceId)}</strong> needs to be reconnected before this store can add anything to it.</p>`,
    );
  } else {
    parts.push(`<p data-status="not_connected">Connect your workspace so this store can add your orders and shipments to it.</p>`);
  }
  if (input.configured) {
    const label = c ? (c.status === "active" ? "Connect a different workspace" : "Reconnect workspace") : "Connect workspace";
    parts.push(`<form method="post" action="${e(input.prefix)}/connect">
  <input type="hidden" name="${CSRF_FIELD}" value="${e(input.csrfToken)}">
  <button type="submit" class="button" data-action="connect">${e(label)}</button>
</form>`);
  } else {
    parts.push(`<p data-status="unavailable">${e(RESULT_MESSAGES.not_configured)}</p>`);
  }
  return `<div class="page-width connect-workspace">
<h1>Connect your workspace</h1>
${parts.join("\n")}
</div>`;
}
