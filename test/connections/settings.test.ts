// The admin Settings page: inline field errors, write-only secrets (never in HTML, loader data, action data or
// the client bundle), "set, changed on <date>", check connection messages, and a replaced signing secret taking
// effect on the very next check.
import { translator } from "~/i18n/translate";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadServiceSettings } from "~/connections/settings-loader.server";
import { keyIdOf, parseKeyring } from "~/crypto/secret-box.server";
import { CHROME_USER_AGENT, newContext, screenshotPath } from "../helpers/browser";
import { withHarness } from "../helpers/harness";
import { reasonText } from "~/sync/reasons";
import { dataPath, readData } from "../helpers/route-data";
import { embeddedUrl, mintSessionToken, TEST_SHOP } from "../helpers/shopify";

const KEYS = `s1:${randomBytes(32).toString("base64")}`;
const keyring = parseKeyring(KEYS);
const CLIENT_SECRET = "sandbox-client-secret";
const SIGNING_SECRET = "whsec-sandbox-0001";

const h = withHarness({ keyring, app: { env: { ENCRYPTION_KEYS: KEYS } }, emulator: "oauth", browser: true });

async function admin(pathAndQuery: string, init: RequestInit = {}) {
  return fetch(new URL(pathAndQuery, h.app.url), {
    ...init,
    redirect: "manual",
    headers: {
      Authorization: `Bearer ${await mintSessionToken()}`,
      "User-Agent": CHROME_USER_AGENT,
      ...(init.headers ?? {}),
    },
  });
}

const DATA = dataPath("/app/settings", "routes/app.settings");
const post = (fields: Record<string, string>) => admin(DATA, { method: "POST", body: new URLSearchParams(fields) });

function validFields(overrides: Record<string, string> = {}) {
  return {
    intent: "save",
    environment: "sandbox",
    baseUrl: h.emulator.url,
    sandboxBaseUrl: h.emulator.url,
    authUrl: h.emulator.url,
    clientId: "sandbox-client",
    clientSecret: CLIENT_SECRET,
    signingSecret: SIGNING_SECRET,
    ...overrides,
  };
}

async function check() {
  const res = await post({ intent: "check" });
  expect(res.status).toBe(200);
  return (await readData(res)).check as {
    ok: boolean;
    message: string;
    lines: { name: string; ok: boolean; message: string }[];
  };
}

describe("settings form", () => {
  it("answers inline field errors in its own shape and stores nothing", async () => {
    const res = await post({
      intent: "save",
      environment: "staging",
      baseUrl: "ftp://files.example.com",
      sandboxBaseUrl: "not a url",
      authUrl: "https://user:pw@auth.example.com",
      clientId: "   ",
    });
    expect(res.status).toBe(422);
    const body = await readData(res);
    expect(body).toMatchObject({ intent: "save", ok: false });
    expect(body.fieldErrors).toEqual({
      environment: expect.stringContaining("sandbox or production"),
      baseUrl: expect.stringContaining("absolute https address"),
      sandboxBaseUrl: expect.stringContaining("absolute https address"),
      authUrl: expect.stringContaining("user name or password"),
      clientId: "Client ID is required",
      clientSecret: "Client secret is required",
      signingSecret: "Signing secret is required",
    });
    expect(await h.db.prisma.shopSettings.count()).toBe(0);

    const unknown = await post({ intent: "launch" });
    expect(unknown.status).toBe(400);
    expect(await readData(unknown)).toMatchObject({ intent: "unknown", error: expect.stringContaining("save") });
    const empty = await admin(DATA, { method: "POST" });
    expect(empty.status).toBe(400);
  });

  it("text with a NUL or other control character gets field errors, not a 500", async () => {
    const res = await post(
      validFields({
        baseUrl: "https://api.example.com/v\u00001",
        authUrl: "https://auth.example.com/\u0007",
        clientId: "client\u0000id",
      }),
    );
    expect(res.status).toBe(422);
    const body = await readData(res);
    expect(body).toMatchObject({ intent: "save", ok: false });
    expect(body.fieldErrors).toEqual({
      baseUrl: expect.stringContaining("control character"),
      authUrl: expect.stringContaining("control character"),
      clientId: expect.stringContaining("control character"),
    });
    expect(await h.db.prisma.shopSettings.count()).toBe(0);
  });

  it("an over-long secret gets a field error that names it", async () => {
    const res = await post(validFields({ clientSecret: "c".repeat(4097), signingSecret: "s".repeat(4097) }));
    expect(res.status).toBe(422);
    const body = await readData(res);
    expect(body.fieldErrors).toEqual({
      clientSecret: "Client secret is too long (at most 4096 characters)",
      signingSecret: "Signing secret is too long (at most 4096 characters)",
    });
    expect(await h.db.prisma.shopSettings.count()).toBe(0);
  });

  it("shows the errors under the fields in the browser", async () => {
    const context = await newContext(h.browser, { Authorization: `Bearer ${await mintSessionToken()}` });
    const page = await context.newPage();
    await page.goto(await embeddedUrl(h.app.url, "/app/settings"));
    await page.waitForSelector("[data-testid=settings-form]");
    await page.fill("input[name=baseUrl]", "ftp://nope");
    await page.fill("input[name=authUrl]", "relative/path");
    await page.click("[data-testid=settings-form] button[type=submit]");
    await page.waitForSelector("text=The settings were not saved");
    const text = await page.textContent("body");
    expect(text).toContain("Base URL must be an absolute https address");
    expect(text).toContain("Auth URL must be an absolute https address");
    expect(text).toContain("Client secret is required");
    await page.screenshot({ path: screenshotPath("settings-field-errors"), fullPage: true });
    await context.close();
  });

  it("saves; secrets are encrypted, write-only, and shown as 'set, changed on <date>'", async () => {
    const res = await post(validFields());
    expect(res.status).toBe(200);
    const saved = await res.text();
    expect(saved).not.toContain(CLIENT_SECRET);
    expect(saved).not.toContain(SIGNING_SECRET);
    expect(await readData(new Response(saved))).toMatchObject({
      ok: true,
      changedSecrets: ["clientSecret", "signingSecret"],
    });

    const row = await h.db.prisma.shopSettings.findUniqueOrThrow({ where: { shop: TEST_SHOP } });
    expect(keyIdOf(row.clientSecretEnc!)).toBe("s1");
    expect(JSON.stringify(row)).not.toContain(CLIENT_SECRET);
    expect(JSON.stringify(row)).not.toContain(SIGNING_SECRET);
    expect(await loadServiceSettings(h.db.prisma, TEST_SHOP, keyring)).toEqual({
      environment: "sandbox",
      baseUrl: h.emulator.url,
      sandboxBaseUrl: h.emulator.url,
      authUrl: h.emulator.url,
      clientId: "sandbox-client",
      clientSecret: CLIENT_SECRET,
      signingSecret: SIGNING_SECRET,
    });

    // Loader data: status only.
    const loader = await (await admin(DATA)).text();
    expect(loader).not.toContain(CLIENT_SECRET);
    expect(loader).not.toContain(SIGNING_SECRET);
    expect((await readData(new Response(loader))).settings.clientSecret).toEqual({
      set: true,
      changedAt: row.clientSecretChangedAt!.toISOString(),
    });

    // The rendered page (server HTML with its embedded loader data) in a browser.
    const context = await newContext(h.browser, { Authorization: `Bearer ${await mintSessionToken()}` });
    const page = await context.newPage();
    const response = await page.goto(await embeddedUrl(h.app.url, "/app/settings"));
    const html = (await response!.text()) + (await page.content());
    await page.waitForSelector("text=Set, changed on");
    expect(html).not.toContain(CLIENT_SECRET);
    expect(html).not.toContain(SIGNING_SECRET);
    const date = translator("en").dateTime(row.signingSecretChangedAt!); // the admin's language: English here
    expect(await page.textContent("body")).toContain(`Set, changed on ${date}`);
    expect(await page.inputValue("input[name=clientSecret]")).toBe("");
    await page.screenshot({ path: screenshotPath("settings-saved"), fullPage: true });
    await context.close();

    // Saving again with empty secret fields keeps them (and their dates).
    const again = await post(validFields({ clientSecret: "", signingSecret: "", clientId: "sandbox-client" }));
    expect((await readData(again)).changedSecrets).toEqual([]);
    const kept = await h.db.prisma.shopSettings.findUniqueOrThrow({ where: { shop: TEST_SHOP } });
    expect(kept.clientSecretEnc).toBe(row.clientSecretEnc);
    expect(kept.signingSecretChangedAt).toEqual(row.signingSecretChangedAt);
  });

  it("a changed Auth URL needs the client secret again, a changed (sandbox) base URL the signing secret", async () => {
    expect((await post(validFields())).status).toBe(200);
    const before = await h.db.prisma.shopSettings.findUniqueOrThrow({ where: { shop: TEST_SHOP } });
    const elsewhere = "https://collector.example.net";
    const cases: { change: Record<string, string>; field: string; message: string }[] = [
      {
        change: { authUrl: elsewhere },
        field: "clientSecret",
        message: "Enter the client secret again: the Auth URL changed",
      },
      {
        change: { baseUrl: elsewhere },
        field: "signingSecret",
        message: "Enter the signing secret again: the base URL changed",
      },
      {
        change: { sandboxBaseUrl: elsewhere },
        field: "signingSecret",
        message: "Enter the signing secret again: the sandbox base URL changed",
      },
    ];
    for (const { change, field, message } of cases) {
      const res = await post(validFields({ ...change, clientSecret: "", signingSecret: "" }));
      expect(res.status).toBe(422);
      const body = await readData(res);
      expect(body.fieldErrors).toEqual({ [field]: message });
      // Typing the other secret is not enough.
      const other =
        field === "clientSecret"
          ? { signingSecret: SIGNING_SECRET, clientSecret: "" }
          : { clientSecret: CLIENT_SECRET, signingSecret: "" };
      const still = await post(validFields({ ...change, ...other }));
      expect(still.status).toBe(422);
      expect((await readData(still)).fieldErrors).toEqual({ [field]: message });
    }
    // Nothing was stored: the secrets still go only where they were saved for.
    expect(await h.db.prisma.shopSettings.findUniqueOrThrow({ where: { shop: TEST_SHOP } })).toEqual(before);

    // All three changed at once: both fields, each with its reason.
    const all = await post(
      validFields({
        authUrl: elsewhere,
        baseUrl: elsewhere,
        sandboxBaseUrl: elsewhere,
        clientSecret: "",
        signingSecret: "",
      }),
    );
    expect((await readData(all)).fieldErrors).toEqual({
      clientSecret: "Enter the client secret again: the Auth URL changed",
      signingSecret: "Enter the signing secret again: the base URL and sandbox base URL changed",
    });

    // Re-entered, the change is saved; unchanged URLs (even with spaces around them) still keep the stored secrets.
    const saved = await post(validFields({ authUrl: elsewhere, signingSecret: "" }));
    expect(saved.status).toBe(200);
    expect((await readData(saved)).changedSecrets).toEqual(["clientSecret"]);
    const kept = await post(validFields({ authUrl: ` ${elsewhere} `, clientSecret: "", signingSecret: "" }));
    expect(kept.status).toBe(200);
    expect((await readData(kept)).changedSecrets).toEqual([]);

    // In the browser the reason shows under the field.
    const context = await newContext(h.browser, { Authorization: `Bearer ${await mintSessionToken()}` });
    const page = await context.newPage();
    await page.goto(await embeddedUrl(h.app.url, "/app/settings"));
    await page.waitForSelector("[data-testid=settings-form]");
    await page.fill("input[name=authUrl]", h.emulator.url);
    await page.click("[data-testid=settings-form] button[type=submit]");
    await page.waitForSelector("text=Enter the client secret again: the Auth URL changed");
    await page.screenshot({ path: screenshotPath("settings-secret-again"), fullPage: true });
    await context.close();

    expect((await post(validFields())).status).toBe(200);
  });

  it("saving wakes imports that waited for the settings, instead of leaving them to their 10-minute timer", async () => {
    const record = await h.db.prisma.syncRecord.create({
      data: {
        shop: TEST_SHOP,
        kind: "order",
        externalId: "settings-wait-1",
        orderId: "settings-wait-1",
        state: "waiting",
        reasonCode: "settings_missing",
        reason: reasonText("settings_missing"),
      },
    });
    const later = new Date(Date.now() + 10 * 60_000);
    const job = await h.db.prisma.job.create({
      data: {
        shop: TEST_SHOP,
        kind: "order",
        orderKey: "order:settings-wait-1",
        payload: {},
        runAt: later,
        recordId: record.id,
      },
    });
    expect((await post(validFields())).status).toBe(200);
    const woken = await h.db.prisma.job.findUniqueOrThrow({ where: { id: job.id } });
    expect(woken.runAt.getTime()).toBeLessThanOrEqual(Date.now());
    await h.db.prisma.job.delete({ where: { id: job.id } });
    await h.db.prisma.syncRecord.delete({ where: { id: record.id } });
  });

  it("the rendered page's forms carry no Shopify session token", async () => {
    const url = await embeddedUrl(h.app.url, "/app/settings");
    const idToken = new URL(url).searchParams.get("id_token")!;
    const res = await fetch(url, { headers: { "User-Agent": CHROME_USER_AGENT } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("settings-form");
    expect(html).not.toContain(idToken);
  });

  it("the client bundle contains no secret", () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const full = path.join(dir, name);
        if (statSync(full).isDirectory()) walk(full);
        else files.push(full);
      }
    };
    walk(path.resolve("build/client"));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const text = readFileSync(file, "latin1");
      expect(text.includes(CLIENT_SECRET) || text.includes(SIGNING_SECRET) || text.includes(KEYS.split(":")[1])).toBe(
        false,
      );
    }
  });
});

describe("check connection", () => {
  it("passes with the right credentials", async () => {
    const result = await check();
    expect(result.ok).toBe(true);
    expect(result.lines.map((l) => l.ok)).toEqual([true, true]);
  });

  it("names a bad signing secret and a bad client secret, without echoing them", async () => {
    await post(validFields({ signingSecret: "whsec-wrong-secret", clientSecret: "wrong-client-secret" }));
    const result = await check();
    expect(result.ok).toBe(false);
    expect(result.lines.find((l) => l.name === "signature")?.message).toMatch(
      /^signature rejected: check the .*signing secret/,
    );
    expect(result.lines.find((l) => l.name === "client")?.message).toMatch(
      /client rejected: check the client ID and client secret/,
    );
    expect(JSON.stringify(result)).not.toMatch(/whsec-wrong-secret|wrong-client-secret/);
    await post(validFields());
    expect((await check()).ok).toBe(true);
  });

  it("says which host it could not reach", async () => {
    const closed = "http://127.0.0.1:9"; // discard port: nothing listens
    // New addresses: both secrets are entered again (a stored secret never goes to an address it was not saved for).
    await post(validFields({ sandboxBaseUrl: closed, authUrl: closed }));
    const result = await check();
    expect(result.ok).toBe(false);
    expect(result.message).toContain("could not reach 127.0.0.1:9");
    expect(result.lines.every((l) => l.message.includes("could not reach 127.0.0.1:9"))).toBe(true);
    await post(validFields());
  });

  it("a replaced signing secret is used from the next check on (emulator rotation)", async () => {
    const rotate = async () => {
      const res = await fetch(`${h.emulator.url}/_emulator/clients/sandbox-client/rotate-signing-secret`, {
        method: "POST",
      });
      return ((await res.json()) as { signing_secret: string }).signing_secret;
    };
    expect((await check()).ok).toBe(true);
    await rotate(); // the saved secret stays valid for the grace period…
    expect((await check()).ok).toBe(true);
    const newest = await rotate(); // …until a second rotation drops it
    const stale = await check();
    expect(stale.ok).toBe(false);
    expect(stale.message).toContain("signature rejected");

    // Only the signing secret is replaced; no restart, no cache: the very next request uses it.
    const saved = await post(validFields({ clientSecret: "", signingSecret: newest }));
    expect((await readData(saved)).changedSecrets).toEqual(["signingSecret"]);
    const fresh = await check();
    expect(fresh).toMatchObject({ ok: true });

    const context = await newContext(h.browser, { Authorization: `Bearer ${await mintSessionToken()}` });
    const page = await context.newPage();
    await page.goto(await embeddedUrl(h.app.url, "/app/settings"));
    await page.getByRole("button", { name: "Check connection" }).click();
    await page.waitForSelector("text=Connection ok");
    await page.screenshot({ path: screenshotPath("settings-check-ok"), fullPage: true });
    expect(await page.content()).not.toContain(newest);
    await context.close();
  });
});
