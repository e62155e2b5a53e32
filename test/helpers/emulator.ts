// The service emulator in tests, over real HTTP: start one, read its state, inject faults, reset it. Shared by the
// service client tests and the sync tests (each takes the emulator or its URL).
import { DEFAULT_CONFIG, type EmulatorConfig } from "../../emulator/config";
import { startEmulator, type RunningEmulator } from "../../emulator/server";
import type { LoggedRequest } from "../../emulator/store";

type Target = string | { url: string };
const urlOf = (target: Target) => (typeof target === "string" ? target : target.url);

/** An emulator whose rate limit is out of the way (tests of the limit itself configure their own). */
export function startTestEmulator(overrides: Partial<EmulatorConfig> = {}): Promise<RunningEmulator> {
  return startEmulator({
    port: 0,
    config: { ...DEFAULT_CONFIG, rate_limit: { capacity: 10_000, leak_per_second: 10_000 }, ...overrides },
  });
}

export interface EmulatorState {
  handoffs: unknown[];
  orders: { external_id: string; external_order_id?: string; workspace_id: string; status: string; body: unknown }[];
  shipments: { external_id: string; workspace_id: string; body: unknown }[];
  requests: LoggedRequest[];
}

export async function emulatorState(target: Target): Promise<EmulatorState> {
  return (await fetch(`${urlOf(target)}/_emulator/state`)).json() as Promise<EmulatorState>;
}

export interface Fault {
  method?: string;
  path?: string;
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  times?: number;
  delay_ms?: number;
}

export async function injectFault(target: Target, fault: Fault): Promise<void> {
  const res = await fetch(`${urlOf(target)}/_emulator/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(fault),
  });
  if (res.status !== 201) throw new Error(`fault not accepted: ${res.status} ${await res.text()}`);
}

export async function resetEmulator(target: Target): Promise<void> {
  const res = await fetch(`${urlOf(target)}/_emulator/reset`, { method: "POST" });
  // Read the body rather than cancel it: under MSW's interceptor (backfill tests) a cancelled body never settles.
  if (res.status !== 200) throw new Error(`reset refused: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
}
