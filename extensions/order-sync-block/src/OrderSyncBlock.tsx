// The order page block: did this order (and each shipment) reach the customer's workspace, and if not, why; Retry
// now / Mark as resolved for a failed one. Talks to the app's /api/order-block with the admin's session token
// (app/routes/api.order-block.tsx); the reason text comes from the app, the rest from locales/. An admin block has no
// toast API (only app home has one), so an action's outcome is a banner inside the block.
import "@shopify/ui-extensions/preact";
import { render } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { BlockRecord, OrderBlockView } from "../../../app/admin/order-block-view";

export default async () => {
  render(<OrderSyncBlock />, document.body);
};

type Intent = "retry" | "resolve";
type View = { phase: "loading" } | { phase: "error" } | { phase: "ready"; data: OrderBlockView };
type Outcome = { tone: "success" | "critical"; message: string } | null;

const t = (key: string, options?: Record<string, unknown>) => String(shopify.i18n.translate(key, options));

/** One call to the app's backend; relative URLs reach the app from Shopify's admin. */
async function call(
  orderId: string,
  body?: { intent: Intent; recordId: string },
): Promise<{ ok: boolean; data: OrderBlockView }> {
  const token = await shopify.auth.idToken();
  if (!token) throw new Error("no session token");
  const response = await fetch(`/api/order-block?order=${encodeURIComponent(orderId)}`, {
    method: body ? "POST" : "GET",
    headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await response.json().catch(() => null);
  if (!data || (!response.ok && !body)) throw new Error(`HTTP ${response.status}`);
  return { ok: response.ok && data.ok !== false, data };
}

const TONE: Record<string, "success" | "critical" | "warning" | "info" | "neutral"> = {
  imported: "success",
  updated: "success",
  failed: "critical",
  waiting: "warning",
  pending: "info",
  skipped: "neutral",
};

function formatTime(iso: string) {
  try {
    return shopify.i18n.formatDate(new Date(iso), { dateStyle: "medium", timeStyle: "short" });
  } catch {
    return iso;
  }
}

function RecordRow({
  record,
  busy,
  onAction,
}: {
  record: BlockRecord;
  busy: boolean;
  onAction: (intent: Intent, recordId: string) => void;
}) {
  const label = record.kind === "order" ? t("order") : t("shipment", { id: record.externalId });
  return (
    <s-stack direction="block" gap="small-200" data-record={record.id}>
      <s-stack direction="inline" gap="small-200" alignItems="center">
        <s-text type="strong">{label}</s-text>
        <s-badge tone={TONE[record.state] ?? "neutral"}>{t(`state.${record.state}`)}</s-badge>
        <s-text color="subdued">{formatTime(record.at)}</s-text>
      </s-stack>
      {record.reason && <s-paragraph>{record.reason}</s-paragraph>}
      {record.resolved && <s-paragraph color="subdued">{t("resolvedNote")}</s-paragraph>}
      <s-text>{record.workspaceId ? t("workspace", { workspace: record.workspaceId }) : t("noWorkspace")}</s-text>
      <s-stack direction="inline" gap="small-200" alignItems="center">
        <s-link href={`app:${record.path}`}>{t("openRecord")}</s-link>
        {/* Never disabled while an action is on its way (onAction takes one at a time): a disabled button loses
            focus, and a keyboard or screen reader user would lose their place. */}
        {record.canRetry && (
          <s-button variant="primary" onClick={() => onAction("retry", record.id)}>
            {t("retry")}
          </s-button>
        )}
        {record.canResolve && <s-button onClick={() => onAction("resolve", record.id)}>{t("resolve")}</s-button>}
        {busy && <s-spinner accessibilityLabel={t("working")} />}
      </s-stack>
    </s-stack>
  );
}

export function OrderSyncBlock() {
  const orderId = shopify.data.selected?.[0]?.id ?? "";
  const [view, setView] = useState<View>({ phase: "loading" });
  const [busy, setBusy] = useState<string | null>(null); // the record an action is on its way for
  const [outcome, setOutcome] = useState<Outcome>(null);
  const acting = useRef(false); // a second click before the re-render must not send a second action

  const load = useCallback(async () => {
    try {
      const { data } = await call(orderId);
      setView({ phase: "ready", data });
    } catch {
      setView({ phase: "error" });
    }
  }, [orderId]);
  useEffect(() => {
    load();
  }, [load]);

  const onAction = async (intent: Intent, recordId: string) => {
    if (acting.current) return; // one action at a time: a press before the answer does nothing
    acting.current = true;
    setBusy(recordId);
    setOutcome(null);
    try {
      const { ok } = await call(orderId, { intent, recordId });
      setOutcome(
        ok
          ? { tone: "success", message: t(intent === "retry" ? "retried" : "resolvedDone") }
          : { tone: "critical", message: t("actionFailed") },
      );
    } catch {
      setOutcome({ tone: "critical", message: t("actionFailed") });
    }
    await load();
    acting.current = false;
    setBusy(null);
  };

  if (view.phase === "loading") {
    return (
      <s-admin-block heading={t("name")}>
        <s-stack direction="inline" gap="small-200" alignItems="center">
          <s-spinner accessibilityLabel={t("loading")} />
          <s-text>{t("loading")}</s-text>
        </s-stack>
      </s-admin-block>
    );
  }
  if (view.phase === "error") {
    return (
      <s-admin-block heading={t("name")}>
        <s-banner tone="critical">
          <s-paragraph>{t("error")}</s-paragraph>
          <s-button
            onClick={() => {
              setView({ phase: "loading" });
              load();
            }}
          >
            {t("tryAgain")}
          </s-button>
        </s-banner>
      </s-admin-block>
    );
  }
  const { data } = view;
  const records = data.status === "unknown" ? [] : [...(data.order ? [data.order] : []), ...data.shipments];
  return (
    <s-admin-block heading={t("name")}>
      <s-stack direction="block" gap="base">
        {outcome && (
          <s-banner tone={outcome.tone} data-outcome={outcome.tone}>
            <s-paragraph>{outcome.message}</s-paragraph>
          </s-banner>
        )}
        {data.paused && <s-banner tone="warning">{t("paused")}</s-banner>}
        {data.status === "unknown" && <s-paragraph>{t("unknown")}</s-paragraph>}
        {data.status === "no_workspace" && <s-paragraph>{t("empty")}</s-paragraph>}
        {data.status !== "unknown" &&
          records.map((record) => (
            <RecordRow key={record.id} record={record} busy={busy === record.id} onAction={onAction} />
          ))}
      </s-stack>
    </s-admin-block>
  );
}
