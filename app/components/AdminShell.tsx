// The admin's shell: App Bridge's navigation menu in the Shopify admin; the same links as a plain nav bar where App
// Bridge is absent (tests, the demo); a skeleton page while another page loads.
import { Link, useLocation, useNavigation } from "@remix-run/react";
import { NavMenu } from "@shopify/app-bridge-react";
import { BlockStack, Card, Layout, SkeletonBodyText, SkeletonDisplayText, SkeletonPage } from "@shopify/polaris";
import { useEffect, useState, type ReactNode } from "react";
import { appBridge } from "./app-bridge";
import { useI18n } from "./i18n";

export const NAV = [
  { to: "/app", label: "home.title" },
  { to: "/app/log", label: "log.title" },
  { to: "/app/customers", label: "customers.title" },
  { to: "/app/settings", label: "settings.title" },
  { to: "/app/privacy", label: "privacy.title" },
] as const;

function FallbackNav() {
  const { pathname } = useLocation();
  const { t } = useI18n();
  const current = (to: string) =>
    to === "/app" ? pathname === "/app" || pathname === "/app/" : pathname.startsWith(to);
  return (
    <nav
      aria-label={t("nav.label")}
      style={{
        display: "flex",
        flexWrap: "wrap",
        gap: "4px 16px",
        padding: "8px 16px",
        background: "#fff",
        borderBottom: "1px solid #e3e3e3",
      }}
    >
      {NAV.map((item) => (
        <Link
          key={item.to}
          to={item.to}
          aria-current={current(item.to) ? "page" : undefined}
          style={{
            padding: "6px 0",
            color: "#303030",
            fontWeight: current(item.to) ? 650 : 450,
            textDecoration: current(item.to) ? "underline" : "none",
          }}
        >
          {t(item.label)}
        </Link>
      ))}
    </nav>
  );
}

function LoadingPage() {
  return (
    <SkeletonPage primaryAction>
      <Layout>
        <Layout.Section>
          <Card>
            <BlockStack gap="300">
              <SkeletonDisplayText size="small" />
              <SkeletonBodyText lines={6} />
            </BlockStack>
          </Card>
        </Layout.Section>
      </Layout>
    </SkeletonPage>
  );
}

export function AdminShell({ children }: { children: ReactNode }) {
  // Known only in the browser: render the fallback after hydration so server and client agree on the first paint.
  const [bridge, setBridge] = useState<boolean | null>(null);
  useEffect(() => setBridge(appBridge() !== null), []);
  const navigation = useNavigation();
  const { t } = useI18n();
  const { pathname } = useLocation();
  const toOtherPage = navigation.state === "loading" && navigation.location.pathname !== pathname;
  return (
    <>
      {/* Without App Bridge the menu element is unknown to the browser and would show its links inline. */}
      <style>{"ui-nav-menu{display:none}"}</style>
      {/* While rows are selected, Polaris' IndexTable lays its bulk actions bar (with a select-all checkbox of its own)
          over the table's header checkbox, which keeps focus under the bar where nobody sees it (WCAG 2.4.11). The
          covered copy leaves the tab order (visibility); the bar's own does the same job. Keyboard walk: test/accessibility. */}
      <style>
        {
          ".Polaris-IndexTable__IndexTableWrapper:has(.Polaris-IndexTable__BulkActionsWrapperVisible) .Polaris-IndexTable-ScrollContainer .Polaris-IndexTable__ColumnHeaderCheckboxWrapper{visibility:hidden}"
        }
      </style>
      <NavMenu>
        {NAV.map((item) => (
          <Link key={item.to} to={item.to} rel={item.to === "/app" ? "home" : undefined}>
            {t(item.label)}
          </Link>
        ))}
      </NavMenu>
      {bridge === false ? <FallbackNav /> : null}
      {toOtherPage ? <LoadingPage /> : children}
    </>
  );
}
