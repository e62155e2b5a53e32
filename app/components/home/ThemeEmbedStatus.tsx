// Home's setup guide, "Connect workspace" step: whether the app embed is on in the published theme
// (app/admin/theme-setup.server.ts) and the theme editor's deep links for each piece.
import { Badge, BlockStack, Button, InlineStack, Text } from "@shopify/polaris";
import type { EmbedStatus, ThemeLinks } from "../../admin/theme-setup.server";
import { useI18n } from "../i18n";

export function ThemeEmbedStatus({ embed, links }: { embed: EmbedStatus; links: ThemeLinks }) {
  const { t } = useI18n();
  const theme = embed.state === "unknown" ? "" : embed.themeName || t("home.embed.publishedTheme");
  return (
    <BlockStack gap="100">
      <InlineStack gap="100" blockAlign="center">
        {embed.state === "on" ? (
          <Badge tone="success">{t("home.embed.on", { theme })}</Badge>
        ) : embed.state === "off" ? (
          <Badge tone="attention">{t("home.embed.off", { theme })}</Badge>
        ) : (
          <Badge>{t("home.embed.notChecked")}</Badge>
        )}
        {embed.state === "unknown" ? (
          <Text as="span" tone="subdued" variant="bodySm">
            {t(`home.embed.why.${embed.why}`)}
          </Text>
        ) : null}
      </InlineStack>
      <InlineStack gap="200" wrap>
        {embed.state === "on" ? null : (
          <Button url={links.embed} target="_top" variant="primary" size="slim">
            {t("home.setup.theme.action")}
          </Button>
        )}
        <Button url={links.continueCart} target="_top" size="slim">
          {t("home.embed.addContinueCart")}
        </Button>
        <Button url={links.connectWorkspace} target="_top" size="slim">
          {t("home.embed.addConnectWorkspace")}
        </Button>
      </InlineStack>
    </BlockStack>
  );
}
