// Injected misbehaviour (POST /_emulator/faults), consumed in registration order.
import { z } from "zod";
import type { Headers, Reply } from "./http";

export const FaultSchema = z.strictObject({
  method: z.string().min(1).optional(),
  path: z.string().min(1).optional(),
  status: z.int().min(100).max(599).optional(),
  body: z.unknown().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  times: z.int().min(1).optional(),
  delay_ms: z.number().min(0).optional(),
});
export type FaultInput = z.infer<typeof FaultSchema>;

interface Fault extends FaultInput {
  remaining: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class Faults {
  private faults: Fault[] = [];

  add(input: FaultInput): void {
    this.faults.push({ ...input, remaining: input.times ?? 1 });
  }

  clear(): void {
    this.faults = [];
  }

  /** Takes one use of the first fault that matches and has (or lacks) a status. */
  private take(method: string, path: string, withStatus: boolean): Fault | undefined {
    const index = this.faults.findIndex(
      (f) =>
        (f.status !== undefined) === withStatus &&
        (f.method === undefined || f.method.toUpperCase() === method.toUpperCase()) &&
        (f.path === undefined || f.path === path),
    );
    if (index < 0) return undefined;
    const fault = this.faults[index];
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.faults.splice(index, 1);
    return fault;
  }

  /** A canned answer for this request, after its delay; undefined when no status fault matches. */
  async cannedReply(method: string, path: string): Promise<Reply | undefined> {
    if (this.faults.length === 0) return undefined;
    const fault = this.take(method, path, true);
    if (!fault || fault.status === undefined) return undefined;
    if (fault.delay_ms) await sleep(fault.delay_ms);
    const headers: Headers = {};
    let body = "";
    if (fault.body !== undefined) {
      body = typeof fault.body === "string" ? fault.body : JSON.stringify(fault.body);
      headers["content-type"] = "application/json";
    }
    for (const [k, v] of Object.entries(fault.headers ?? {})) headers[k.toLowerCase()] = v;
    const error =
      typeof fault.body === "object" && fault.body !== null && "error" in fault.body ? String(fault.body.error) : null;
    return { status: fault.status, headers, body, error };
  }

  /** Delay between reserving an Idempotency-Key and storing the result, so a concurrent retry sees it in flight. */
  async afterKeyReserved(method: string, path: string): Promise<void> {
    if (this.faults.length === 0) return;
    const fault = this.take(method, path, false);
    if (fault?.delay_ms) await sleep(fault.delay_ms);
  }
}
