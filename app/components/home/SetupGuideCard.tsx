// Home's setup guide until setup is done: each step with its help and the place to do it (app/admin/home.server.ts
// says which steps are done).
import { Badge, BlockStack, Button, Card, InlineStack, ProgressBar, Text } from "@shopify/polaris";
import type { AccountSurface, SetupStep } from "../../admin/home.server";
import type { EmbedStatus, ThemeLinks } from "../../admin/theme-setup.server";
import type { MessageKey } from "../../i18n/catalog";
import { useI18n } from "../i18n";
import { ThemeEmbedStatus } from "./ThemeEmbedStatus";

type Step = {
  title: MessageKey;
  help: MessageKey;
  action: MessageKey;
  url: (handle: string) => string;
  external?: boolean;
};

// The "Connect workspace" step as it fits the store's customer accounts (README, "Connect workspace").
const THEME_STEP: Record<AccountSurface, Partial<Step>> = {
  customer_accounts: {
    title: "home.setup.theme.accounts.title",
    help: "home.setup.theme.accounts.help",
    action: "home.setup.theme.accounts.action",
    url: (handle) => `https://admin.shopify.com/store/${handle}/settings/checkout/editor`,
  },
  legacy_accounts: {
    help: "home.setup.theme.legacy.help",
  },
  unknown: {},
};

const STEPS: Record<string, Step> = {
  settings: {
    title: "home.setup.settings.title",
    help: "home.setup.settings.help",
    action: "home.setup.settings.action",
    url: () => "/app/settings",
  },
  check: {
    title: "home.setup.check.title",
    help: "home.setup.check.help",
    action: "home.setup.check.action",
    url: () => "/app/settings",
  },
  theme: {
    title: "home.setup.theme.title",
    help: "home.setup.theme.help",
    action: "home.setup.theme.action",
    url: () => "",
    external: true,
  },
  import: {
    title: "home.setup.import.title",
    help: "home.setup.import.help",
    action: "home.setup.import.action",
    url: () => "/app/log",
  },
};

export function SetupGuideCard({
  shop,
  setup,
  surface,
  embed,
  links,
}: {
  shop: string;
  setup: SetupStep[];
  surface: AccountSurface;
  embed: EmbedStatus;
  links: ThemeLinks;
}) {
  const { t } = useI18n();
  const handle = shop.replace(/\.myshopify\.com$/, "");
  const done = setup.filter((s) => s.done).length;
  return (
    <Card>
      <BlockStack gap="300">
        <Text as="h2" variant="headingMd">
          {t("home.setup.heading", { done, total: setup.length })}
        </Text>
        <ProgressBar progress={(100 * done) / setup.length} size="small" />
        {setup.map((step, i) => {
          const s = step.id === "theme" ? { ...STEPS.theme, ...THEME_STEP[surface] } : STEPS[step.id];
          return (
            <InlineStack key={step.id} align="space-between" blockAlign="center" gap="200" wrap>
              <BlockStack gap="050">
                <Text as="h3" fontWeight="semibold" tone={step.done ? "subdued" : undefined}>
                  {i + 1}. {t(s.title)} {step.done ? <Badge tone="success">{t("common.done")}</Badge> : null}
                </Text>
                <Text as="p" tone="subdued" variant="bodySm">
                  {t(s.help)}
                </Text>
                {step.id === "theme" ? <ThemeEmbedStatus embed={embed} links={links} /> : null}
              </BlockStack>
              {/* The theme's pieces have their own links (ThemeEmbedStatus); customer accounts, the accounts editor. */}
              {step.done || (step.id === "theme" && surface !== "customer_accounts") ? null : (
                <Button url={s.url(handle)} target={s.external ? "_blank" : undefined}>
                  {t(s.action)}
                </Button>
              )}
            </InlineStack>
          );
        })}
      </BlockStack>
    </Card>
  );
}
