// What the Workspace block and the Connect workspace page show alike: a notice (the outcome of an action), the
// loading state, and "can't be reached" with Try again.

import type { Profile } from "./profile";

export type NoticeValue = { tone: "success" | "critical" | "info"; text: string } | null;

/**
 * How the customer's latest Connect attempt ended, in words (connect.result.* in locales/), as the backend says;
 * "connected" only while it still is (not after a Disconnect since).
 */
export function attemptNotice(t: (key: string) => string, profile: Profile): NoticeValue {
  const attempt = profile.attempt;
  if (!attempt || (attempt.result === "connected" && profile.status !== "connected")) return null;
  return { tone: attempt.result === "connected" ? "success" : "critical", text: t(`connect.result.${attempt.result}`) };
}

export function Notice({ notice }: { notice: NoticeValue }) {
  return notice ? (
    <s-banner tone={notice.tone} data-notice={notice.tone}>
      <s-text>{notice.text}</s-text>
    </s-banner>
  ) : null;
}

export function Loading({ label }: { label: string }) {
  return (
    <s-stack direction="inline" gap="small-200">
      <s-spinner accessibilityLabel={label} />
      <s-text>{label}</s-text>
    </s-stack>
  );
}

export function Unavailable({ text, retry, onRetry }: { text: string; retry: string; onRetry: () => void }) {
  return (
    <>
      <s-text tone="critical">{text}</s-text>
      <s-button variant="secondary" onClick={onRetry} data-action="retry">
        {retry}
      </s-button>
    </>
  );
}
