// The human page behind claim_url (docs/service.md, "Endpoints"): list the cart's lines, claim it into a workspace.
import type { IncomingMessage } from "node:http";
import type { Context } from "./context";
import { escapeHtml, html, page, parseForm, single, type Reply } from "./http";
import type { Handoff } from "./store";

function formatPrice(minor: number | undefined, currency: string | undefined): string {
  if (minor === undefined) return "";
  // Two decimals is right for most currencies; the page is for humans, the exact integer stays in the title attr.
  return `${(minor / 100).toFixed(2)}${currency ? ` ${currency}` : ""}`;
}

/** 404 for an unknown handoff, 410 for an expired one; otherwise the handoff. */
function lookup(ctx: Context, handoffId: string): { handoff: Handoff } | { reply: Reply } {
  const handoff = ctx.store.handoffs.get(handoffId);
  if (!handoff) {
    return {
      reply: html(404, page("Cart not found", "<p>There is no cart at this address. Check the link you followed.</p>")),
    };
  }
  if (ctx.now() >= Date.parse(handoff.expires_at)) {
    return {
      reply: html(
        410,
        page(
          "This cart has expired",
          `<p>This cart link expired at ${escapeHtml(handoff.expires_at)}. Go back to the store and continue your cart again.</p>`,
        ),
      ),
    };
  }
  return { handoff };
}

function linesTable(handoff: Handoff): string {
  const rows = handoff.body.lines
    .map((l) => {
      const price = formatPrice(l.unit_price_minor, l.currency);
      const priceCell =
        l.unit_price_minor === undefined ? "<td></td>" : `<td title="${l.unit_price_minor}">${escapeHtml(price)}</td>`;
      return `<tr><td>${escapeHtml(l.title)}</td><td>${escapeHtml(String(l.quantity))}</td>${priceCell}</tr>`;
    })
    .join("\n");
  return `<table><thead><tr><th>Item</th><th>Quantity</th><th>Unit price</th></tr></thead><tbody>
${rows}
</tbody></table>`;
}

export function claimGet(ctx: Context, handoffId: string): Reply {
  const found = lookup(ctx, handoffId);
  if ("reply" in found) return found.reply;
  const { handoff } = found;
  if (handoff.claimed_workspace_id) {
    const ws = ctx.workspaces.get(handoff.claimed_workspace_id);
    return html(
      200,
      page(
        "Cart claimed",
        `<p>This cart was claimed into ${escapeHtml(ws?.name ?? handoff.claimed_workspace_id)}.</p>${linesTable(handoff)}`,
      ),
    );
  }
  const options = [...ctx.workspaces.values()]
    .map((w) => `<option value="${escapeHtml(w.id)}">${escapeHtml(w.name)}</option>`)
    .join("");
  const body = `<p>Cart <code>${escapeHtml(handoff.body.external_cart_id)}</code>, valid until ${escapeHtml(handoff.expires_at)}.</p>
${linesTable(handoff)}
<form method="post">
<label>Workspace <select name="workspace_id">${options}</select></label>
<button type="submit">Claim this cart</button>
</form>`;
  return html(200, page("Your cart", body));
}

export function claimPost(ctx: Context, handoffId: string, req: IncomingMessage, bytes: Buffer): Reply {
  const found = lookup(ctx, handoffId);
  if ("reply" in found) return found.reply;
  const { handoff } = found;
  const workspaceId = single(parseForm(req, bytes), "workspace_id");
  const workspace = workspaceId ? ctx.workspaces.get(workspaceId) : undefined;
  if (!workspace) {
    return html(
      400,
      page("Choose a workspace", `<p>Pick one of your workspaces to claim this cart into. <a href="">Back</a></p>`),
    );
  }
  if (handoff.claimed_workspace_id && handoff.claimed_workspace_id !== workspace.id) {
    return html(409, page("Cart already claimed", "<p>This cart was already claimed into another workspace.</p>"));
  }
  if (!handoff.claimed_workspace_id) {
    handoff.claimed_workspace_id = workspace.id;
    handoff.claimed_at = new Date(ctx.now()).toISOString();
  }
  return html(
    200,
    page(
      "Cart claimed",
      `<p>The cart is now in <strong>${escapeHtml(workspace.name)}</strong>.</p>${linesTable(handoff)}`,
    ),
  );
}
