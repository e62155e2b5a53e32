// customer-account.profile.block.render: the shopper's workspace connection on their profile page, with Disconnect.
// Connect (and Reconnect) links to the app's Connect workspace page (the full-page extension workspace-connect,
// ./ConnectPage.tsx), where the connection starts. After consent the shopper comes back to this page (the profile,
// under the account root Shopify's Admin API gives): the block tells how their latest attempt ended, as the backend
// says, never from the page's address.
import "@shopify/ui-extensions/preact";
import { render } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { callBackend } from "./backend";
import { attemptNotice, Loading, Notice, Unavailable, type NoticeValue } from "./states";
import { asProfile, type Profile } from "./profile";

export default async () => {
  render(<ProfileBlock />, document.body);
};

type View = { status: "loading" | "unavailable" } | Profile;

/** The Connect workspace page, by Shopify's extension: protocol (its handle in shopify.extension.toml). */
export const CONNECT_PAGE = "extension:workspace-connect/";

function ProfileBlock() {
  const t = shopify.i18n.translate;
  const [view, setView] = useState<View>({ status: "loading" });
  const [notice, setNotice] = useState<NoticeValue>(null);
  const [busy, setBusy] = useState<"disconnect" | null>(null);
  const acting = useRef(false); // a second press before the re-render must not send a second disconnect

  async function load() {
    setView({ status: "loading" });
    const answer = await callBackend<Record<string, unknown>>(shopify, "/customer-account/connection");
    const profile = answer.ok ? asProfile(answer.body) : null;
    if (profile) setNotice(attemptNotice(t, profile));
    setView(profile ?? { status: "unavailable" });
  }

  useEffect(() => {
    void load();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, when the block mounts
  }, []);

  async function disconnect() {
    if (acting.current) return; // one at a time: a press before the answer does nothing
    acting.current = true;
    setBusy("disconnect");
    setNotice(null);
    const answer = await callBackend<Record<string, unknown>>(shopify, "/customer-account/connection", {
      intent: "disconnect",
    });
    acting.current = false;
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
        <Notice notice={notice} />
        {view.status === "loading" && <Loading label={t("profile.loading")} />}
        {view.status === "unavailable" && (
          <Unavailable text={t("profile.unavailable")} retry={t("profile.retry")} onRetry={() => void load()} />
        )}
        {view.status === "not_configured" && <s-text>{t("profile.notConfigured")}</s-text>}
        {view.status === "not_connected" && (
          <>
            <s-text>{t("profile.notConnected")}</s-text>
            <s-button variant="primary" href={CONNECT_PAGE} data-action="connect">
              {t("profile.connect")}
            </s-button>
          </>
        )}
        {view.status === "connected" && (
          <>
            <s-text>{t("profile.connected", { workspace: view.workspaceId, date: date(view.connectedAt) })}</s-text>
            <s-button variant="secondary" tone="critical" onClick={() => void disconnect()} data-action="disconnect">
              {t("profile.disconnect")}
            </s-button>
          </>
        )}
        {view.status === "needs_reconnect" && (
          <>
            <s-text tone="warning">{t("profile.needsReconnect", { workspace: view.workspaceId })}</s-text>
            <s-stack direction="inline" gap="base">
              <s-button variant="primary" href={CONNECT_PAGE} data-action="connect">
                {t("profile.reconnect")}
              </s-button>
              <s-button variant="secondary" tone="critical" onClick={() => void disconnect()} data-action="disconnect">
                {t("profile.disconnect")}
              </s-button>
            </s-stack>
          </>
        )}
        {/* Not the button's loading state: a disabled button loses focus, and if the disconnect fails a keyboard or
            screen reader user would lose their place. */}
        {busy === "disconnect" && <Loading label={t("profile.disconnecting")} />}
      </s-stack>
    </s-section>
  );
}
