// Budget keys a client cannot choose (the fourth security review, finding 3): a process reached directly with the
// default configuration trusts no X-Forwarded-For (TRUSTED_PROXY_HOPS defaults to 0), and an IPv6 client counts by
// its /64, all of whose addresses it can use.
import { describe, expect, it } from "vitest";
import { addressKey, clientAddress, clientKey } from "~/lib/client-address";
import { memoryBudgets } from "~/lib/shared-budget.server";
import { SHOPPER_POLICIES, takeShopperBudget } from "~/lib/shopper-budget.server";
import { withHarness } from "../helpers/harness";

describe("the address rule", () => {
  it("an IPv4 address is itself; an IPv6 address is its /64, however it is written", () => {
    expect(addressKey("192.0.2.1")).toBe("192.0.2.1");
    expect(addressKey("::ffff:192.0.2.1")).toBe("192.0.2.1");
    for (const a of [
      "2001:db8:1:2::1",
      "2001:0db8:0001:0002:ffff:ffff:ffff:ffff",
      "2001:DB8:1:2:3:4:5:6",
      "2001:db8:1:2::",
    ])
      expect(addressKey(a), a).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("2001:db8:1:3::1")).not.toBe(addressKey("2001:db8:1:2::1"));
    expect(addressKey("not an address")).toBe("not an address");
    expect(clientKey("203.0.113.9", "2001:db8:1:2::99", 0)).toBe("2001:db8:1:2::/64");
  });

  it("200 addresses of one IPv6 /64 share one address budget", async () => {
    const budget = memoryBudgets();
    const limit = SHOPPER_POLICIES.request.address.burst;
    const answers = [];
    for (let i = 0; i < 200; i++) {
      const address = clientAddress(new Request("http://app/connect/callback"), `2001:db8:1:2:${i.toString(16)}::7`);
      answers.push(await takeShopperBudget("request", { address }, budget));
    }
    expect(answers.filter((a) => a.ok).length).toBeLessThanOrEqual(limit + 1);
    // Another /64 has its own.
    const other = clientAddress(new Request("http://app/"), "2001:db8:1:3::7");
    expect((await takeShopperBudget("request", { address: other }, budget)).ok).toBe(true);
  });
});

describe("a process reached directly, default configuration", () => {
  const h = withHarness({ app: { env: {} } });

  it("a made-up X-Forwarded-For on every request buys no fresh address budget (/connect/callback)", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${h.app.url}/connect/callback?state=x&code=y`, {
        headers: { "X-Forwarded-For": `10.${i >> 8}.${i & 255}.1` },
        redirect: "manual",
      });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    const refused = statuses.filter((s) => s === 429).length;
    console.log(`${refused} of 200 refused`);
    // 120 at once, four a second back: what one address gets, whatever it writes in the header.
    expect(refused).toBeGreaterThanOrEqual(200 - SHOPPER_POLICIES.request.address.burst - 40);
  });
});
