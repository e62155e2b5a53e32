// The emulator's configuration (docs/service.md, "The emulator"): registered apps, workspaces, rate limit and
// secret grace period.
import { readFileSync } from "node:fs";
import { z } from "zod";

export interface ClientConfig {
  client_id: string;
  client_secret: string;
  /** One or two; the last is the current one. */
  signing_secrets: string[];
  redirect_uris: string[];
}

export interface EmulatorConfig {
  clients: ClientConfig[];
  workspaces: { id: string; name: string }[];
  rate_limit?: { capacity: number; leak_per_second: number };
  signing_secret_grace_seconds?: number;
}

/** The documented sandbox app (what `npm run emulator` starts with when no config file is given). */
export const DEFAULT_CONFIG: EmulatorConfig = {
  clients: [
    {
      client_id: "sandbox-client",
      client_secret: "sandbox-client-secret",
      signing_secrets: ["whsec-sandbox-0001"],
      redirect_uris: ["http://localhost:3000/connect/callback"],
    },
  ],
  workspaces: [
    { id: "ws-acme", name: "Acme Workspace" },
    { id: "ws-globex", name: "Globex Workspace" },
  ],
  rate_limit: { capacity: 40, leak_per_second: 2 },
  signing_secret_grace_seconds: 86400,
};

export const DEFAULT_RATE_LIMIT = { capacity: 40, leak_per_second: 2 } as const;
export const DEFAULT_GRACE_SECONDS = 86400;

const nonEmpty = z.string().min(1);

const ConfigSchema = z.strictObject({
  clients: z
    .array(
      z.strictObject({
        client_id: nonEmpty,
        client_secret: nonEmpty,
        signing_secrets: z.array(nonEmpty).min(1).max(2),
        redirect_uris: z.array(nonEmpty).min(1),
      }),
    )
    .min(1),
  workspaces: z.array(z.strictObject({ id: nonEmpty, name: z.string() })).min(1),
  rate_limit: z.strictObject({ capacity: z.number().positive(), leak_per_second: z.number().positive() }).optional(),
  signing_secret_grace_seconds: z.number().min(0).optional(),
});

/** Validates a config object; throws an Error naming the first problems. */
export function parseConfig(input: unknown): EmulatorConfig {
  const result = ConfigSchema.safeParse(input);
  if (!result.success) {
    const detail = result.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new Error(`invalid emulator config: ${detail}`);
  }
  const ids = new Set<string>();
  for (const c of result.data.clients) {
    if (ids.has(c.client_id)) throw new Error(`invalid emulator config: duplicate client_id ${c.client_id}`);
    ids.add(c.client_id);
  }
  return result.data;
}

export function loadConfigFile(path: string): EmulatorConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`cannot read emulator config ${path}: ${(err as Error).message}`);
  }
  return parseConfig(raw);
}
