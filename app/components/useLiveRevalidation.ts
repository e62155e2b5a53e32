// Live progress: while the page says work is running (a backfill, retries, a backlog), its loader runs again every
// few seconds (Remix revalidation, not a reload); when the work is done the page stops asking.
import { useRevalidator } from "@remix-run/react";
import { useEffect } from "react";

export const LIVE_EVERY_MS = 3000;

export function useLiveRevalidation(active: boolean, everyMs = LIVE_EVERY_MS) {
  const revalidator = useRevalidator();
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      if (document.visibilityState === "visible" && revalidator.state === "idle") revalidator.revalidate();
    }, everyMs);
    return () => clearInterval(timer);
  }, [active, everyMs, revalidator]);
}
