// customer-account.page.render (the extension workspace-connect): the Connect workspace page, where a shopper starts
// connecting their workspace. The way out is a link (an s-button with the service's authorization URL as its href),
// as Shopify has extensions link outside customer accounts; it may open in this tab or a new one (target "auto").
// The way back does not pass through this page: after consent the shopper completes on the store (the app proxy,
// where Shopify signs who is signed in) and lands on their profile. This page never reads its own address (Shopify
// gives it as extension:/…, not the browser's): it asks the backend how the latest attempt ended, when it opens and,
// while it offers the link, every few seconds (the consent may have gone on in another tab).
import "@shopify/ui-extensions/preact";
import { render } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { callBackend } from "./backend";
import { attemptNotice, Loading, Notice, Unavailable, type NoticeValue } from "./states";
import { asProfile, type Profile } from "./profile";

export default async () => {
  render(<ConnectPage />, document.body);
};

type View =
  | { status: "loading" | "unavailable" | "not_configured" }
  | { status: "connected"; workspaceId: string; connectedAt: string }
  | { status: "ready"; authorizationUrl: string; renew: boolean };

const PROFILE_PAGE = "shopify:customer-account/profile";
/** While the link is offered: how often the page asks, and for how long (an attempt lives ten minutes). */
const POLL_MS = 4_000;
const POLL_FOR_MS = 10 * 60 * 1000;

const readProfile = async () => {
  const answer = await callBackend<Record<string, unknown>>(shopify, "/customer-account/connection");
  return answer.ok ? asProfile(answer.body) : null;
};

function ConnectPage() {
  const t = shopify.i18n.translate;
  const [view, setView] = useState<View>({ status: "loading" });
  const [notice, setNotice] = useState<NoticeValue>(null);
  // The latest attempt already told (its end time): a poll tells only one that ended since.
  const told = useRef<string | null>(null);

  /** Tells an attempt that ended since the last one told; true when it did. */
  const tell = (profile: Profile) => {
    const finished = profile.attempt?.finishedAt ?? null;
    if (finished === told.current) return false;
    told.current = finished;
    const next = attemptNotice(t, profile);
    if (next) setNotice(next);
    return true;
  };

  async function load() {
    setView({ status: "loading" });
    const profile = await readProfile();
    if (!profile) return setView({ status: "unavailable" });
    tell(profile);
    if (profile.status === "connected")
      return setView({ status: "connected", workspaceId: profile.workspaceId, connectedAt: profile.connectedAt });
    if (profile.status === "not_configured") return setView({ status: "not_configured" });
    // Not connected, or to renew: a one-time authorization URL.
    const started = await callBackend<{ authorizationUrl?: unknown }>(shopify, "/customer-account/connection", {
      intent: "connect",
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

  // The consent may finish in another tab: while the link is offered, ask how the attempt ended.
  const waiting = view.status === "ready";
  useEffect(() => {
    if (!waiting) return;
    const until = Date.now() + POLL_FOR_MS;
    const timer = setInterval(() => {
      if (Date.now() > until) return clearInterval(timer);
      void readProfile().then((profile) => {
        if (!profile) return;
        const ended = tell(profile);
        if (profile.status === "connected")
          setView({ status: "connected", workspaceId: profile.workspaceId, connectedAt: profile.connectedAt });
        else if (ended) void load(); // declined, expired, …: the link was used up, a fresh one to try again
      });
    }, POLL_MS);
    return () => clearInterval(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- restarted only when waiting starts or ends
  }, [waiting]);

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
