// The service's own message, shown as its words: labelled in the admin's language, the words themselves quoted and
// marked translate="no" (they are data, never reworded or machine-translated).
import { Text } from "@shopify/polaris";
import { useI18n } from "./i18n";
import type { ReasonParts } from "../admin/reason-words";

export function ServiceWords({ words }: { words: string }) {
  const { t } = useI18n();
  return (
    <Text as="span" tone="subdued">
      {t("reason.serviceLabel")} <q translate="no">{words}</q>
    </Text>
  );
}

/** A reason's words, then the service's own words when there are any. */
export function ReasonText({ parts }: { parts: ReasonParts | null }) {
  if (!parts) return null;
  return (
    <>
      {parts.text}
      {parts.data ? <span translate="no"> {parts.data}</span> : null}
      {parts.quote ? (
        <>
          {" "}
          <ServiceWords words={parts.quote} />
        </>
      ) : null}
    </>
  );
}
