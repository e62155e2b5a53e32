// Toasts for actions: App Bridge's toast inside the Shopify admin, a dismissible Polaris banner elsewhere (the same
// words either way, so tests and the demo see what a merchant sees).
import { Banner } from "@shopify/polaris";
import { useEffect, useState } from "react";
import { appBridge } from "./app-bridge";

export interface ActionMessage {
  ok: boolean;
  message: string;
}

export function ActionToast({ result }: { result: ActionMessage | undefined | null }) {
  const [shown, setShown] = useState<ActionMessage | null>(null);
  useEffect(() => {
    if (!result) return;
    const bridge = appBridge();
    if (bridge?.toast) {
      bridge.toast.show(result.message, { isError: !result.ok, duration: 5000 });
      setShown(null);
    } else {
      setShown(result);
    }
  }, [result]);
  if (!shown) return null;
  return (
    <div role="status" aria-live="polite">
      <Banner tone={shown.ok ? "success" : "critical"} onDismiss={() => setShown(null)}>
        {shown.message}
      </Banner>
    </div>
  );
}
