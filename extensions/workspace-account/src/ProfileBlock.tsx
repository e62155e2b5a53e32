// customer-account.profile.block.render: the shopper's workspace connection on their profile page. Connect asks the
// backend for a one-time authorization URL and opens it; after consent the service's redirect reaches the app,
// which sends the shopper back here with a state and proof in the page's URL, and this block completes the
// connection with its session token (the backend stores it only for the customer who started).
import "@shopify/ui-extensions/preact";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { callBackend } from "./backend";

export default async () => {
  render(<ProfileBlock />, document.body);
};

type Profile =
  | { status: "not_configured" | "not_connected" }
  | { status: "connected" | "needs_reconnect"; workspaceId: string; connectedAt: string };
type View = { status: "loading" | "unavailable" } | Profile;

const RESULTS = ["connected", "denied", "expired", "already_used", "invalid_state", "failed", "not_configured", "wrong_customer"];
const PROFILE_STATES = ["not_configured", "not_connected", "connected", "needs_reconnect"];

/** The state and proof (or a result) the app's callback put in the account page's URL. */
function fromUrl(): { state: string; proof: string } | { result: string } | null {
  let url: URL;
  try {
    url = new URL(navigation.currentEntry?.url ?? "");
  } catch {
    return null;
  }
  const state = url.searchParams.get("workspace_state");
  const proof = url.searchParams.get("workspace_proof");
  if (state && proof) return { state, proof };
  const result = url.searchParams.get("workspace_result");
  return result && RESULTS.includes(result) ? { result } : null;
}

const asProfile = (body: Record<string, unknown>): Profile | null =>
  typeof body.status === "string" && PROFILE_STATES.includes(body.status) ? (body as unknown as Profile) : null;

function ProfileBlock() {
  const t = shopify.i18n.translate;
  const [view, setView] = useState<View>({ status: "loading" });
  const [notice, setNotice] = useState<{ tone: "success" | "critical" | "info"; text: string } | null>(null);
  const [busy, setBusy] = useState<"connect" | "disconnect" | null>(null);

  async function load() {
    setView({ status: "loading" });
    const back = fromUrl();
    if (back && "state" in back) {
      const done = await callBackend<Record<string, unknown>>(shopify, "/customer-account/connection", { intent: "complete", ...back });
      const profile = done.ok ? asProfile(done.body) : null;
      if (done.ok && profile) {
        const result = String(done.body.result);
        // A reload of the page it came back to: the link is used up, and what counts is the connection now.
        const stale = result === "already_used" && profile.status === "connected";
        if (RESULTS.includes(result) && !stale) setNotice({ tone: result === "connected" ? "success" : "critical", text: t(`profile.result.${result}`) });
        setView(profile);
        return;
      }
    } else if (back) {
      setNotice({ tone: back.result === "connected" ? "success" : "critical", text: t(`profile.result.${back.result}`) });
    }
    const answer = await callBackend<Record<string, unknown>>(shopify, "/customer-account/connection");
    const profile = answer.ok ? asProfile(answer.body) : null;
    setView(profile ?? { status: "unavailable" });
  }

  useEffect(() => {
    void load();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, when the block mounts
  }, []);

  async function connect() {
    setBusy("connect");
    setNotice(null);
    const answer = await callBackend<{ authorizationUrl?: unknown }>(shopify, "/customer-account/connection", { intent: "connect" });
    const url = answer.ok && typeof answer.body.authorizationUrl === "string" ? answer.body.authorizationUrl : null;
    if (url && /^https?:\/\//.test(url)) {
      navigation.navigate(url); // top-level, to the service's consent page
      return;
    }
    setBusy(null);
    if (!answer.ok && answer.body?.error === "not_configured") setView({ status: "not_configured" });
    else setNotice({ tone: "critical", text: t("profile.actionFailed") });
  }

  async function disconnect() {
    setBusy("disconnect");
    setNotice(null);
    const answer = await callBackend<Record<string, unknown>>(shopify, "/customer-account/connection", { intent: "disconnect" });
    setBusy(null);
    const profile = answer.ok ? asProfile(answer.body) : null;
    if (!profile) {
      setNotice({ tone: "critical", text: t("profile.actionFailed") });
      return;
    }
    if (answer.ok && answer.body.disconnected === true) setNotice({ tone: "info", text: t("profile.disconnected") });
    setView(profile);
  }

  const date = (iso: string) => shopify.i18n.formatDate(new Date(iso), { dateStyle: "long" });
  return (
    <s-section heading={t("profile.heading")}>
      <s-stack direction="block" gap="base" data-workspace-state={view.status}>
        {notice && (
          <s-banner tone={notice.tone} data-notice={notice.tone}>
            <s-text>{notice.text}</s-text>
          </s-banner>
        )}
        {view.status === "loading" && (
          <s-stack direction="inline" gap="small-200">
            <s-spinner accessibilityLabel={t("profile.loading")} />
            <s-text>{t("profile.loading")}</s-text>
          </s-stack>
        )}
        {view.status === "unavailable" && (
          <>
            <s-text tone="critical">{t("profile.unavailable")}</s-text>
            <s-button variant="secondary" onClick={() => void load()} data-action="retry">
              {t("profile.retry")}
            </s-button>
          </>
        )}
        {view.status === "not_configured" && <s-text>{t("profile.notConfigured")}</s-text>}
        {view.status === "not_connected" && (
          <>
            <s-text>{t("profile.notConnected")}</s-text>
            <s-button variant="primary" loading={busy === "connect"} onClick={() => void connect()} data-action="connect">
              {t("profile.connect")}
            </s-button>
          </>
        )}
        {view.status === "connected" && (
          <>
            <s-text>{t("profile.connected", { workspace: view.workspaceId, date: date(view.connectedAt) })}</s-text>
            <s-button variant="secondary" tone="critical" loading={busy === "disconnect"} onClick={() => void disconnect()} data-action="disconnect">
              {t("profile.disconnect")}
            </s-button>
          </>
        )}
        {view.status === "needs_reconnect" && (
          <>
            <s-text tone="warning">{t("profile.needsReconnect", { workspace: view.workspaceId })}</s-text>
            <s-stack direction="inline" gap="base">
              <s-button variant="primary" loading={busy === "connect"} onClick={() => void connect()} data-action="connect">
                {t("profile.reconnect")}
              </s-button>
              <s-button variant="secondary" tone="critical" loading={busy === "disconnect"} onClick={() => void disconnect()} data-action="disconnect">
                {t("profile.disconnect")}
              </s-button>
            </s-stack>
          </>
        )}
      </s-stack>
    </s-section>
  );
}
