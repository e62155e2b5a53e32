// customer-account.order-status.block.render: whether this order and its shipments reached the shopper's
// workspace, in plain words. The backend answers only for the order's own customer; for any other order it says
// "unknown", and the block then shows nothing. On the pre-authenticated Order status page (opened from an order
// email without signing in) Shopify says who the shopper is only after they sign in: the block asks them to
// (Shopify's requireLogin) and calls nothing until then.
import "@shopify/ui-extensions/preact";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { callBackend } from "./backend";

export default async () => {
  render(<OrderStatusBlock />, document.body);
};

const STATES = ["sent", "waiting", "failed", "not_sent"] as const;
type Delivery = (typeof STATES)[number];
type View =
  { status: "loading" | "unavailable" | "unknown" } | { status: "known"; order: Delivery; shipments: Delivery[] };

const isDelivery = (value: unknown): value is Delivery =>
  typeof value === "string" && (STATES as readonly string[]).includes(value);

function OrderStatusBlock() {
  const t = shopify.i18n.translate;
  const [view, setView] = useState<View>({ status: "loading" });
  const orderId = shopify.order.value?.id ?? "";
  const signedIn = shopify.authenticationState.value === "fully_authenticated";

  useEffect(() => {
    if (!signedIn) return;
    const id = orderId.replace("gid://shopify/Order/", "");
    if (!/^\d{1,20}$/.test(id)) {
      setView({ status: "unknown" });
      return;
    }
    void callBackend<Record<string, unknown>>(shopify, `/customer-account/orders/${id}`).then((answer) => {
      if (!answer.ok) return setView({ status: "unavailable" });
      const { status, order, shipments } = answer.body;
      if (status === "known" && isDelivery(order) && Array.isArray(shipments) && shipments.every(isDelivery)) {
        setView({ status: "known", order, shipments: shipments.slice(0, 50) });
      } else {
        setView({ status: "unknown" });
      }
    });
  }, [orderId, signedIn]);

  if (!signedIn) {
    return (
      <s-section heading={t("order.heading")}>
        <s-stack direction="block" gap="small-200" data-workspace-order="sign_in">
          <s-text>{t("order.signIn")}</s-text>
          <s-button variant="secondary" onClick={() => void shopify.requireLogin()} data-action="sign-in">
            {t("order.signInAction")}
          </s-button>
        </s-stack>
      </s-section>
    );
  }
  if (view.status === "unknown") return null; // not this customer's, or nothing the app knows of
  const tone = (state: Delivery) => (state === "sent" ? "success" : state === "failed" ? "critical" : "neutral");
  return (
    <s-section heading={t("order.heading")}>
      <s-stack
        direction="block"
        gap="small-200"
        data-workspace-order={view.status === "known" ? view.order : view.status}
      >
        {view.status === "loading" && <s-text>{t("order.loading")}</s-text>}
        {view.status === "unavailable" && <s-text tone="critical">{t("order.unavailable")}</s-text>}
        {view.status === "known" && (
          <>
            <s-text tone={tone(view.order)}>{t(`order.${view.order}`)}</s-text>
            {view.shipments.map((state, i) => (
              <s-text key={i} tone={tone(state)} data-shipment={state}>
                {t(`order.shipment.${state}`, { number: i + 1 })}
              </s-text>
            ))}
          </>
        )}
      </s-stack>
    </s-section>
  );
}
