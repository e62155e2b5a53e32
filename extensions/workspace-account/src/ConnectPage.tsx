// customer-account.page.render (the extension workspace-connect): the Connect workspace page, where a shopper
// connects their workspace and comes back to after approving at the service. The way out is a link (an s-button
// with the service's authorization URL as its href), as Shopify has extensions link outside customer accounts; the
// way back is this page's own URL, which full-page extensions are given (navigation.currentEntry): the app's callback
// puts a state and a one-time proof in it, and this page completes the connection with its session token. The
// backend stores it only for the customer who started (session token `sub`), once, within ten minutes.
import "@shopify/ui-extensions/preact";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { callBackend } from "./backend";
import { Loading, Notice, Unavailable, type NoticeValue } from "./states";
import { asProfile } from "./profile";

export default async () => {
  render(<ConnectPage />, document.body);
};

type View =
  | { status: "loading" | "unavailable" | "not_configured" }
  | { status: "connected"; workspaceId: string; connectedAt: string }
  | { status: "ready"; authorizationUrl: string; renew: boolean };
type Back = { state: string; proof: string } | { result: string } | null;

const RESULTS = [
  "connected",
  "denied",
  "expired",
  "already_used",
  "invalid_state",
  "failed",
  "not_configured",
  "wrong_customer",
];
const PROFILE_PAGE = "shopify:customer-account/profile";

/** This page's address as Shopify gives it (without what came back in it), and what came back. */
function thisPage(): { page: string; back: Back } | null {
  let url: URL;
  try {
    url = new URL(navigation.currentEntry.url ?? "");
  } catch {
    return null;
  }
  const state = url.searchParams.get("workspace_state");
  const proof = url.searchParams.get("workspace_proof");
  const result = url.searchParams.get("workspace_result");
  const back: Back = state && proof ? { state, proof } : result && RESULTS.includes(result) ? { result } : null;
  url.search = "";
  url.hash = "";
  return { page: url.toString(), back };
}

function ConnectPage() {
  const t = shopify.i18n.translate;
  const [view, setView] = useState<View>({ status: "loading" });
  const [notice, setNotice] = useState<NoticeValue>(null);
  const tell = (result: string) =>
    setNotice({ tone: result === "connected" ? "success" : "critical", text: t(`connect.result.${result}`) });

  async function load() {
    setView({ status: "loading" });
    const here = thisPage();
    let profile = null;
    if (here?.back && "state" in here.back) {
      const done = await callBackend<Record<string, unknown>>(shopify, "/customer-account/connection", {
        intent: "complete",
        ...here.back,
      });
      profile = done.ok ? asProfile(done.body) : null;
      const result = done.ok ? String(done.body.result) : "";
      // A reload of the page it came back to: the link is used up, and what counts is the connection now.
      if (profile && RESULTS.includes(result) && !(result === "already_used" && profile.status === "connected"))
        tell(result);
    } else if (here?.back && "result" in here.back) {
      tell(here.back.result);
    }
    if (!profile) {
      const answer = await callBackend<Record<string, unknown>>(shopify, "/customer-account/connection");
      profile = answer.ok ? asProfile(answer.body) : null;
    }
    if (!profile || !here) return setView({ status: "unavailable" });
    if (profile.status === "connected")
      return setView({ status: "connected", workspaceId: profile.workspaceId, connectedAt: profile.connectedAt });
    if (profile.status === "not_configured") return setView({ status: "not_configured" });
    // Not connected, or to renew: a one-time authorization URL that comes back to this page.
    const started = await callBackend<{ authorizationUrl?: unknown }>(shopify, "/customer-account/connection", {
      intent: "connect",
      returnTo: here.page,
    });
    const url = started.ok && typeof started.body.authorizationUrl === "string" ? started.body.authorizationUrl : null;
    if (url && /^https?:\/\//.test(url))
      setView({ status: "ready", authorizationUrl: url, renew: profile.status === "needs_reconnect" });
    else
      setView({ status: !started.ok && started.body?.error === "not_configured" ? "not_configured" : "unavailable" });
  }

  useEffect(() => {
    void load();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, when the page opens
  }, []);

  const date = (iso: string) => shopify.i18n.formatDate(new Date(iso), { dateStyle: "long" });
  return (
    <s-page heading={t("connect.heading")}>
      <s-section>
        <s-stack direction="block" gap="base" data-workspace-state={view.status}>
          <Notice notice={notice} />
          {view.status === "loading" && <Loading label={t("connect.loading")} />}
          {view.status === "unavailable" && (
            <Unavailable text={t("connect.unavailable")} retry={t("connect.retry")} onRetry={() => void load()} />
          )}
          {view.status === "not_configured" && <s-text>{t("connect.notConfigured")}</s-text>}
          {view.status === "connected" && (
            <s-text>{t("connect.connected", { workspace: view.workspaceId, date: date(view.connectedAt) })}</s-text>
          )}
          {view.status === "ready" && (
            <>
              <s-paragraph>{t(view.renew ? "connect.renew" : "connect.explain")}</s-paragraph>
              <s-button variant="primary" href={view.authorizationUrl} data-action="consent">
                {t("connect.continue")}
              </s-button>
            </>
          )}
          {view.status !== "loading" && (
            <s-link href={PROFILE_PAGE} data-action="back">
              {t("connect.back")}
            </s-link>
          )}
        </s-stack>
      </s-section>
    </s-page>
  );
}
