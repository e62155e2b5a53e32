// The browser's view of the service settings: everything but the secrets, which show only as "set, changed on
// <date>". Contains no secret material, by construction.
import type { PrismaClient } from "@prisma/client";
import { readSections, type Section } from "../db/shop-settings.server";
import { isServiceConfigured } from "./settings-loader.server";

export interface SecretStatus {
  set: boolean;
  /** ISO date-time of the last change, null when never set. */
  changedAt: string | null;
}

/** What the settings page may show. Contains no secret material, by construction. */
export interface SettingsView {
  configured: boolean;
  environment: "sandbox" | "production";
  baseUrl: string;
  sandboxBaseUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: SecretStatus;
  signingSecret: SecretStatus;
}

type Row = Section<"service">;

export function toView(row: Row | null): SettingsView {
  const status = (enc: string | null | undefined, at: Date | null | undefined): SecretStatus => ({
    set: Boolean(enc),
    changedAt: enc && at ? at.toISOString() : null,
  });
  return {
    configured: isServiceConfigured(row),
    environment: row?.environment === "production" ? "production" : "sandbox",
    baseUrl: row?.baseUrl ?? "",
    sandboxBaseUrl: row?.sandboxBaseUrl ?? "",
    authUrl: row?.authUrl ?? "",
    clientId: row?.clientId ?? "",
    clientSecret: status(row?.clientSecretEnc, row?.clientSecretChangedAt),
    signingSecret: status(row?.signingSecretEnc, row?.signingSecretChangedAt),
  };
}

export async function getSettingsView(prisma: PrismaClient, shop: string): Promise<SettingsView> {
  return toView(await readSections(prisma, shop, "service"));
}
