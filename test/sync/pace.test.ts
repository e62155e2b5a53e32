// The worker's pace (issue 39): as many jobs at once as the service's rate times its answer time calls for, within
// the bounds, and fewer when the service struggles, until healthy answers bring it back.
import { describe, expect, it } from "vitest";
import { Pace } from "~/sync/pace.server";

function pace(rate: number | undefined, bounds = { min: 4, max: 256 }) {
  let now = 0;
  const p = new Pace({ ...bounds, rateOf: () => rate, now: () => now });
  return { p, advance: (ms: number) => (now += ms) };
}

describe("the worker's pace", () => {
  it("runs the floor until the service's rate and answer time are known", () => {
    expect(pace(undefined).p.limit()).toBe(4);
    const { p } = pace(undefined);
    p.observe("svc", 2, false);
    expect(p.limit()).toBe(4); // no rate known: nothing to multiply
  });

  it("follows rate x answer time: 100/s answering in 2 s keeps about 300 in flight, in 0.1 s about 17", () => {
    const slow = pace(100, { min: 4, max: 1000 }).p;
    slow.observe("svc", 2, false);
    expect(slow.limit()).toBe(302);
    const fast = pace(100).p;
    fast.observe("svc", 0.1, false);
    expect(fast.limit()).toBe(17);
  });

  it("counts a job's own time beside its service call, not its wait for a rate slot", () => {
    const { p } = pace(100);
    p.observe("svc", 0.1, false);
    p.observeWait(5); // a job that waited for the rate is no reason for more at once
    p.observeJob(5.3); // 5 s waiting, 0.1 s answer, 0.2 s of its own
    expect(p.limit()).toBe(47); // 100/s x 0.3 s x 1.5 = 45, and two
  });

  it("stays within memory's and the pool's ceiling", () => {
    const { p } = pace(1000, { min: 4, max: 50 });
    p.observe("svc", 2, false);
    expect(p.limit()).toBe(50);
  });

  it("keeps to what the database pool serves: 50 jobs a connection for each second the service takes", () => {
    const fast = new Pace({ min: 4, max: 1000, connections: 2, rateOf: () => 1000, now: () => 0 });
    fast.observe("svc", 0.5, false);
    expect(fast.limit()).toBe(100); // 1000/s x 0.5 s asks for 752; two connections serve 100 jobs of half a second
    // A service answering in 2 s: a job holds its connection no longer, so a pool of 5 serves the 302 asked for.
    const slow = new Pace({ min: 4, max: 1000, connections: 5, rateOf: () => 100, now: () => 0 });
    slow.observe("svc", 2, false);
    expect(slow.limit()).toBe(302);
    // ...within memory's ceiling.
    const capped = new Pace({ min: 4, max: 256, connections: 5, rateOf: () => 100, now: () => 0 });
    capped.observe("svc", 2, false);
    expect(capped.limit()).toBe(256);
  });

  it("halves when the service struggles (5xx, timeouts) and grows back while answers are healthy", () => {
    const { p, advance } = pace(100);
    p.observe("svc", 1, false);
    expect(p.limit()).toBe(152);
    p.observe("svc", 15, true); // a timeout: its time is not learned
    expect(p.limit()).toBe(76);
    p.observe("svc", 15, true);
    expect(p.limit()).toBe(38);
    advance(5_000);
    expect(p.limit()).toBe(Math.floor(38 * 1.1 ** 5));
    advance(30_000);
    expect(p.limit()).toBe(152);
  });
});
