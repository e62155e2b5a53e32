// The admin's locale files (app/locales/admin/*.json): every key English has is in every language with the same
// shape (a string, or plural forms with "other") and the same {variables}; no language has a key English lacks;
// every key is used by the app's code; and the translator, the locale resolver and Intl's formats behave.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CATALOG, LOCALES } from "~/i18n/catalog";
import { LOCALE_HEADER, resolveLocale } from "~/i18n/locale";
import { requestLocale } from "~/i18n/request.server";
import { translator } from "~/i18n/translate";

type Message = string | Record<string, string>;
const DIR = "app/locales/admin";
const files = readdirSync(DIR).filter((f) => f.endsWith(".json"));
const read = (file: string): Record<string, Message> => JSON.parse(readFileSync(path.join(DIR, file), "utf8"));
const english = read("en.json");
const variables = (m: Message) =>
  [...new Set((typeof m === "string" ? [m] : Object.values(m)).flatMap((f) => f.match(/\{\w+\}/g) ?? []))].sort();

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(path.join(dir, e.name))
      : /\.tsx?$/.test(e.name)
        ? [readFileSync(path.join(dir, e.name), "utf8")]
        : [],
  );
}

describe("the locale files", () => {
  it("are English, French and German, each found by the app without a list in code", () => {
    expect(files.sort()).toEqual(["de.json", "en.json", "fr.json"]);
    expect(LOCALES).toEqual(["de", "en", "fr"]);
  });

  it.each(files.filter((f) => f !== "en.json"))("%s has every key of English, no other, in the same shape", (file) => {
    const other = read(file);
    expect(Object.keys(other).sort()).toEqual(Object.keys(english).sort());
    for (const [key, message] of Object.entries(english)) {
      const translated = other[key];
      expect(typeof translated, key).toBe(typeof message);
      if (typeof translated === "object") expect(translated.other, `${file} ${key}: plural "other"`).toBeTruthy();
      else expect(translated.trim(), `${file} ${key}: empty`).not.toBe("");
      expect(variables(translated), `${file} ${key}: variables`).toEqual(variables(message));
    }
  });

  it("every key is used by the app (literally, or by a prefix the code completes: t(`reason.${code}`))", () => {
    const code = sources("app").join("\n");
    const prefixes = [...code.matchAll(/`([a-z][\w]*(?:\.[\w]+)*)\.\$\{/g)].map((m) => `${m[1]}.`);
    const unused = Object.keys(english).filter(
      (key) => !code.includes(`"${key}"`) && !prefixes.some((prefix) => key.startsWith(prefix)),
    );
    expect(unused).toEqual([]);
  });
});

describe("choosing the language", () => {
  it("takes Shopify's locale, its language when the region has no file, and English for anything else", () => {
    expect(resolveLocale("fr")).toBe("fr");
    expect(resolveLocale("fr-CA")).toBe("fr");
    expect(resolveLocale("de_DE")).toBe("de");
    expect(resolveLocale("DE")).toBe("de");
    expect(resolveLocale("en-GB")).toBe("en");
    expect(resolveLocale("ja")).toBe("en");
    expect(resolveLocale("pt-BR")).toBe("en");
    for (const hostile of [
      "",
      "f",
      "../../etc/passwd",
      "fr/../../x",
      "fr.json",
      "fr%2F..",
      "<script>",
      "x".repeat(40),
      null,
      7,
      {},
    ])
      expect(resolveLocale(hostile), String(hostile)).toBe("en");
  });

  it("never hands back the request's own text: only a name from the catalog", () => {
    for (const raw of ["Fr", "fR-ca", "de-AT-x-private"]) expect(CATALOG.has(resolveLocale(raw))).toBe(true);
  });

  it("for a request: the URL's locale, else the page's header, else the online session's staff locale, else English", () => {
    const request = (url: string, headers: Record<string, string> = {}) => new Request(url, { headers });
    const staff = (locale: string) => ({ onlineAccessInfo: { associated_user: { locale } } });
    expect(requestLocale(request("https://app.test/app?locale=de", { [LOCALE_HEADER]: "fr" }), staff("fr"))).toBe("de");
    expect(requestLocale(request("https://app.test/app", { [LOCALE_HEADER]: "fr" }), staff("de"))).toBe("fr");
    expect(requestLocale(request("https://app.test/app"), staff("de-CH"))).toBe("de");
    expect(requestLocale(request("https://app.test/app"))).toBe("en");
    expect(requestLocale(request("https://app.test/app?locale=../../x"), staff("de"))).toBe("en");
  });
});

describe("the translator", () => {
  it("fills variables, picks plural forms by Intl.PluralRules, and formats numbers, dates and money per locale", () => {
    const fr = translator("fr");
    const de = translator("de");
    const en = translator("en");
    expect(en.t("log.row.attempts", { count: 1 })).toBe("1 attempt");
    expect(en.t("log.row.attempts", { count: 2 })).toBe("2 attempts");
    expect(fr.t("log.row.attempts", { count: 0 })).toBe("0 tentative"); // French: 0 is "one"
    expect(fr.t("log.row.attempts", { count: 1500 })).toBe("1\u202f500 tentatives");
    expect(de.t("log.row.attempts", { count: 1500 })).toBe("1.500 Versuche");
    expect(de.t("home.subtitle", { shop: "a.myshopify.com" })).toContain("a.myshopify.com");
    expect(en.dateTime("2026-11-22T05:14:00.000Z")).toBe("11/22/2026, 05:14 UTC");
    expect(fr.dateTime("2026-11-22T05:14:00.000Z")).toBe("22/11/2026 05:14 UTC");
    expect(de.dateTime("2026-11-22T05:14:00.000Z")).toBe("22.11.2026, 05:14 UTC");
    expect(de.money(4500, "EUR")).toBe("45,00\u00a0€");
    expect(fr.money(4500, "USD")).toBe("45,00\u00a0$US");
    expect(en.money(4500, "JPY")).toBe("¥4,500");
    expect(en.money(4500, "not a currency")).toBe("45");
  });

  it("falls back to English for a language it does not have", () => {
    expect(translator("xx").t("home.title")).toBe("Home");
    expect(translator("xx").locale).toBe("en");
  });
});
