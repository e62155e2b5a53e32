// What the Workspace block and the Connect workspace page show alike: a notice (the outcome of an action), the
// loading state, and "can't be reached" with Try again.

export type NoticeValue = { tone: "success" | "critical" | "info"; text: string } | null;

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
