// Polaris' own words (pagination, filters, bulk actions) in the admin's language, from the files Polaris ships
// (@shopify/polaris/locales/<locale>.json), handed to AppProvider's i18n by the app's layout route. Read only for
// the one language a page needs; English when Polaris has no file for it.
const FILES = import.meta.glob<Record<string, unknown>>("/node_modules/@shopify/polaris/locales/*.json", {
  import: "default",
});

const byLocale = new Map(
  Object.entries(FILES).map(([file, load]) => [file.slice(file.lastIndexOf("/") + 1, -".json".length), load]),
);

export async function polarisTranslations(locale: string): Promise<Record<string, unknown>> {
  const load = byLocale.get(locale) ?? byLocale.get(locale.split("-")[0]) ?? byLocale.get("en")!;
  return load();
}
