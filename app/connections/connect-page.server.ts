// The storefront "Connect your workspace" page, as Liquid for the app proxy (Shopify renders it inside the theme).
// Everything dynamic is HTML-escaped and has its braces turned into entities, so no stored value can become
// Liquid code. The form carries the customer's CSRF token and nothing about the shopper: who they are comes from
// Shopify's signed proxy parameters, their name from the Admin API.
import { CSRF_FIELD } from "../lib/csrf.server";
import type { ConnectResultCode } from "./oauth-common.server";

/** The words the storefront shows for each result of the connect flow. */
const RESULT_MESSAGES: Record<ConnectResultCode, string> = {
  connected: "Your workspace is connected.",
  denied: "You declined the connection, so nothing was connected. You can start again at any time.",
  expired: "The connection attempt took too long and expired. Please start again.",
  already_used:
    "This connection link was already used. If your workspace is not shown as connected, please start again.",
  invalid_state: "The connection attempt could not be verified. Please start again from this page.",
  failed: "The workspace service could not complete the connection. Nothing was connected; please try again later.",
  not_configured: "Workspace connections are not available at this store yet.",
  wrong_customer:
    "This connection was started from a different customer account, so nothing was connected and the access approved at the workspace service was withdrawn. To connect your own workspace, start again from this page.",
};

export function isResultCode(value: string | null): value is ConnectResultCode {
  return value !== null && Object.hasOwn(RESULT_MESSAGES, value);
}

export const resultMessage = (code: ConnectResultCode) => RESULT_MESSAGES[code];

export interface ConnectPageInput {
  prefix: string;
  configured: boolean;
  result: ConnectResultCode | null;
  connection: {
    workspaceId: string;
    scopes: string[];
    status: "active" | "needs_reconnect";
    connectedAt: string;
  } | null;
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
      `<p class="connect-workspace__result" role="status" data-result="${e(input.result)}" style="padding:12px;border-radius:6px;background:${good ? "#e3f1df" : "#fbeae5"}">${e(resultMessage(input.result))}</p>`,
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
    parts.push(
      `<p data-status="not_connected">Connect your workspace so this store can add your orders and shipments to it.</p>`,
    );
  }
  if (input.configured) {
    const label = c
      ? c.status === "active"
        ? "Connect a different workspace"
        : "Reconnect workspace"
      : "Connect workspace";
    parts.push(`<form method="post" action="${e(input.prefix)}/connect">
  <input type="hidden" name="${CSRF_FIELD}" value="${e(input.csrfToken)}">
  <button type="submit" class="button" data-action="connect">${e(label)}</button>
</form>`);
  } else {
    parts.push(`<p data-status="unavailable">${e(resultMessage("not_configured"))}</p>`);
  }
  return `<div class="page-width connect-workspace">
<h1>Connect your workspace</h1>
${parts.join("\n")}
</div>`;
}

/**
 * The page a signed-out shopper gets instead of a redirect: the sign-in link comes from the theme's own
 * `routes.account_login_url`, which points at whichever customer accounts the store has (the legacy /account/login
 * or the current customer accounts' sign-in), with `return_url` back to `returnPath` on the store. The path is
 * percent-encoded here, so it holds no character Liquid or HTML could read as code.
 */
export function renderSignInPage(returnPath: string): string {
  const encoded = encodeURIComponent(returnPath);
  return `<div class="page-width connect-workspace" data-status="signed_out">
<h1>Connect your workspace</h1>
<p>Sign in to your account to connect your workspace.</p>
{%- assign workspace_login = routes.account_login_url -%}
<p><a class="button" data-action="sign-in" href="{{ workspace_login }}{% if workspace_login contains '?' %}&amp;{% else %}?{% endif %}return_url=${encoded}">Sign in</a></p>
</div>`;
}
