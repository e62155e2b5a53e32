// A full disk is an outage, not a crash, for the whole product `npm run demo` starts (the fourth security review,
// finding 5, as found): the runner, the emulator, the app with its worker and the stand-ins, with the demo's data
// directory (PGlite's data and demo.log) on a small disk of its own. 20 orders a second as Shopify's signed
// orders/create webhooks; the disk filled for 15 s, then freed; every order refused meanwhile delivered again, as
// Shopify does. Every process of the demo stays alive throughout (the same processes: no restart), every order is
// accepted in the end, and the emulator (over HTTP) holds each exactly once.
// Mounting needs root (test/helpers/small-disk.ts says how to run it elsewhere).
import { execFileSync } from "node:child_process";
import { unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { generateOrders } from "../../dev/demo/orders";
import { sendWebhook } from "../../dev/shopify/webhooks";
import { DEMO_CUSTOMERS } from "../../dev/demo-store";
import { DEMO_TIMEOUT_MS, startDemo, type RunningDemo } from "../helpers/demo";
import { emulatorState } from "../helpers/emulator";
import { fillDisk, mountSmallDisk, removeSmallDisk } from "../helpers/small-disk";
import { importCounts } from "../sync/support";

const FULL_MS = 15_000;
const RATE_MS = 50; // 20 orders a second

let mount: string;
let demo: RunningDemo | undefined;

beforeAll(async () => {
  mount = mountSmallDisk("256m", "full-disk-demo-");
  // The service's rate limit out of the way (as in test/helpers/emulator.ts): this test waits for the disk, not the
  // service's budget (2 imports a second would take minutes for 400 orders).
  const config = path.join(mount, "emulator-override.json");
  writeFileSync(config, JSON.stringify({ rate_limit: { capacity: 10_000, leak_per_second: 10_000 } }));
  // Logging as a newcomer's demo does (the tests' default is silent), so demo.log is written on the full disk too.
  demo = await startDemo(["--emulator-config", config], {
    dataDir: path.join(mount, "demo"),
    env: { LOG_LEVEL: "info" },
  });
}, DEMO_TIMEOUT_MS + 10_000);

afterAll(async () => {
  await demo?.stop();
  removeSmallDisk(mount);
}, 30_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every process of the demo (its process group: npm, the runner, the emulator, the app), by pid. */
function demoProcesses(pgid: number): Map<number, string> {
  const out = execFileSync("ps", ["-ww", "-o", "pid=,pgid=,args=", "-e"], { encoding: "utf8" });
  const found = new Map<number, string>();
  for (const line of out.split("\n")) {
    const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (m && Number(m[2]) === pgid) found.set(Number(m[1]), m[3].slice(-160));
  }
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it("the whole demo with its disk full for 15 s under 20 orders a second: nothing exits; every refused order accepted on redelivery and imported exactly once", async () => {
  const running = demo!;
  const { ready } = running;
  const appOrigin = new URL(ready.metrics_url).origin;
  const processes = demoProcesses(running.child.pid!);
  const names = [...processes.values()];
  // npm's shell, the runner (scripts/demo.ts), the emulator and the app (its worker inside it, on PGlite)
  expect(names.some((n) => n.includes("scripts/demo.ts"))).toBe(true);
  expect(names.some((n) => n.includes("emulator/main.ts"))).toBe(true);
  expect(names.some((n) => n.includes("server/main"))).toBe(true);

  const customer = DEMO_CUSTOMERS.find((c) => c.id === ready.customer_id)!;
  const creates = generateOrders(2_000, [customer]).deliveries.filter(
    (d) => d.topic === "orders/create" && d.note === "new",
  );
  const answers = new Map<number, number[]>();
  const deliver = async (i: number) => {
    const d = creates[i];
    const status = await sendWebhook(ready.app_url, d.topic, d.payload, {
      shop: ready.shop,
      secret: ready.api_secret,
      eventId: d.eventId,
      webhookId: d.webhookId,
    }).then(
      async (r) => (await r.arrayBuffer(), r.status),
      () => 0, // no answer at all
    );
    answers.set(i, [...(answers.get(i) ?? []), status]);
    return status;
  };

  let sending = true;
  let sent = 0;
  const load = (async () => {
    const inFlight: Promise<unknown>[] = [];
    const start = Date.now();
    while (sending) {
      inFlight.push(deliver(sent++));
      await sleep(Math.max(0, start + sent * RATE_MS - Date.now())); // by the clock: 20 a second under load too
    }
    await Promise.all(inFlight);
  })();
  const readiness: number[] = [];
  const dead = new Set<string>();
  const probe = (async () => {
    while (sending) {
      for (const [pid, name] of processes) if (!alive(pid)) dead.add(name);
      readiness.push(
        await fetch(`${appOrigin}/readyz`).then(
          async (r) => (await r.arrayBuffer(), r.status),
          () => 0,
        ),
      );
      await sleep(250);
    }
  })();

  await sleep(2_000);
  const fill = path.join(mount, "fill");
  fillDisk(fill);
  const filledAt = sent;
  await sleep(FULL_MS);
  const readyWhileFull = readiness.slice();
  unlinkSync(fill);
  const freedAt = sent;
  await sleep(4_000);
  sending = false;
  await Promise.all([load, probe]);

  const histogram: Record<number, number> = {};
  for (const s of [...answers.values()].flat()) histogram[s] = (histogram[s] ?? 0) + 1;
  const refused = [...answers].filter(([, statuses]) => statuses[0] !== 200).map(([i]) => i);
  const takenAgain = [...answers].find(([i, statuses]) => i >= freedAt && statuses[0] === 200)?.[0];
  const dropped = /log file is written again \((\d+) lines were dropped\)/.exec(running.output())?.[1];
  console.log(
    `${sent} orders sent (disk filled at ${filledAt}, freed at ${freedAt}); first answers ${JSON.stringify(histogram)}; ` +
      `${refused.length} refused; orders taken again from ${takenAgain} (${(((takenAgain ?? NaN) - freedAt) * RATE_MS) / 1000} s after the space came back); ` +
      `readiness while full: ${[...new Set(readyWhileFull)].join(",")}; demo.log lines dropped: ${dropped}`,
  );
  // Every process of the demo kept running, the same ones: nothing exited, nothing was started again.
  expect([...dead]).toEqual([]);
  expect([...processes.keys()].every(alive)).toBe(true);
  expect(running.child.exitCode).toBe(null);
  expect(running.output()).not.toMatch(/The app stopped|Stopping the demo/);
  // The demo's log file on the same disk dropped lines and said so, then was written again.
  expect(running.output()).toMatch(/The demo's log file cannot be written \(ENOSPC\)/);
  expect(running.output()).toMatch(/The demo's log file is written again \(\d+ lines were dropped\)/);
  // The disk full did refuse orders, retryably (503 from the app), and readiness said so, and says ready again.
  expect(refused.length).toBeGreaterThan(0);
  expect(Object.keys(histogram).every((s) => ["200", "503"].includes(s))).toBe(true);
  expect(readyWhileFull).toContain(503);
  // Once space is back, orders are taken at once: the last second's were all accepted.
  for (let i = sent - 20; i < sent; i++) expect(answers.get(i)![0], `order ${i}`).toBe(200);
  expect((await fetch(`${appOrigin}/readyz`)).status).toBe(200);

  // Shopify delivers every refused one again (a few seconds apart): each is accepted.
  const redelivered = Date.now();
  for (let attempt = 0; attempt < 5; attempt++) {
    const pending = refused.filter((i) => answers.get(i)!.at(-1) !== 200);
    if (pending.length === 0) break;
    if (attempt > 0) await sleep(1_000);
    const inFlight: Promise<unknown>[] = [];
    for (const i of pending) {
      inFlight.push(deliver(i));
      await sleep(RATE_MS); // 20 a second
    }
    await Promise.all(inFlight);
  }
  for (const i of refused) expect(answers.get(i)!.at(-1), `order ${i} on redelivery`).toBe(200);
  const attempts = refused.map((i) => answers.get(i)!.length - 1);
  console.log(
    `redelivery: ${refused.length} orders in ${((Date.now() - redelivered) / 1000).toFixed(1)} s, at most ${Math.max(0, ...attempts)} attempts each`,
  );

  // The emulator imported each order exactly once (non-replayed 201s per order, from its request log), into the
  // connected customer's workspace.
  const ids = creates.slice(0, sent).map((d) => String(d.payload.id));
  const deadline = Date.now() + 60_000;
  let counts = new Map<string, number>();
  let workspaces = new Set<string>();
  for (;;) {
    const state = await emulatorState(ready.emulator_url);
    counts = importCounts(state, "/api/v1/orders");
    const wanted = new Set(ids);
    workspaces = new Set(state.orders.filter((o) => wanted.has(o.external_id)).map((o) => o.workspace_id));
    if (ids.every((id) => counts.has(id)) || Date.now() > deadline) break;
    await sleep(500);
  }
  console.log(
    `emulator: ${ids.filter((id) => counts.has(id)).length} of ${ids.length} imported, ` +
      `${ids.filter((id) => (counts.get(id) ?? 0) > 1).length} more than once, ` +
      `all in ${((Date.now() - redelivered) / 1000).toFixed(1)} s from the first redelivery`,
  );
  expect(ids.map((id) => counts.get(id) ?? 0)).toEqual(ids.map(() => 1));
  expect(workspaces.size).toBe(1);
  // Still the same processes after all of it.
  expect([...processes.keys()].every(alive)).toBe(true);
}, 150_000);
