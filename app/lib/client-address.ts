// The address a request came from, as the outermost proxy we trust saw it. Every proxy appends the address it
// saw (its peer) to X-Forwarded-For, so the entries are only as trustworthy as the hop that wrote them: the
// rightmost is our load balancer's, the leftmost is whatever the client wrote. Counting trusted hops from the
// right (never taking the leftmost) is the only reading a client cannot choose (docs/security.md).
// A budget or a connection bound keys a client by `addressKey`: an IPv4 address, or an IPv6 address's /64 (the
// smallest block a provider hands one subscriber: a client owns all 2^64 addresses of it and can use any).
import { env } from "../env.server";

/**
 * With `hops` trusted proxies between the client and us: 0 → the socket's peer; n → the entry the n-th proxy
 * (counted from us) appended. A chain shorter than `hops` gives its leftmost entry, which a trusted hop wrote.
 */
export function forwardedAddress(
  forwardedFor: string | null | undefined,
  peer: string | undefined,
  hops: number,
): string {
  const entries = (forwardedFor ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  if (hops <= 0 || entries.length === 0) return normalise(peer ?? "");
  return normalise(entries[Math.max(0, entries.length - hops)]);
}

/** `::ffff:192.0.2.1` (an IPv4 peer on a dual-stack socket) and `192.0.2.1` are one address. */
function normalise(address: string): string {
  const a = address.toLowerCase();
  return a.startsWith("::ffff:") && a.includes(".") ? a.slice(7) : a;
}

/**
 * What one client is, for a budget or a bound: an IPv4 address as it is, an IPv6 address as its /64
 * ("2001:db8:1:2::/64"). Anything else (not an address) is returned as it is.
 */
export function addressKey(address: string): string {
  const a = normalise(address.replace(/%.*$/, "")); // a zone index names our interface, not the client
  if (!a.includes(":")) return a;
  const halves = a.split("::");
  if (halves.length > 2) return a;
  const groups = (part: string | undefined) =>
    (part ? part.split(":") : []).flatMap((g) => (g.includes(".") ? ["0", "0"] : [g])); // a trailing IPv4: 2 groups
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  const all =
    halves.length === 2
      ? [...head, ...Array<string>(Math.max(0, 8 - head.length - tail.length)).fill("0"), ...tail]
      : head;
  const prefix = all.slice(0, 4);
  if (all.length !== 8 || !prefix.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return a;
  return `${prefix.map((g) => parseInt(g, 16).toString(16)).join(":")}::/64`;
}

/** The budget key of the client behind `hops` trusted proxies (forwardedAddress, then addressKey). */
export const clientKey = (forwardedFor: string | null | undefined, peer: string | undefined, hops: number): string =>
  addressKey(forwardedAddress(forwardedFor, peer, hops));

/**
 * The client's address as our outermost trusted proxy saw it (TRUSTED_PROXY_HOPS, docs/security.md); for a request
 * that came through Shopify's app proxy (its signature checked), the one Shopify's proxy saw: Shopify's proxy
 * appended the shopper's address and our own proxies appended theirs, so the entry one hop beyond ours, counted from
 * the right; never the leftmost, which the shopper writes. As a budget key (addressKey: an IPv6 client by its /64).
 * The one address rule of every budget and bound (`trustedHops`: a test's or bench's own, else the environment's).
 */
export function clientAddress(
  request: Request,
  peer: string | undefined,
  options: { appProxy?: boolean; trustedHops?: number } = {},
): string {
  const hops = options.trustedHops ?? env().TRUSTED_PROXY_HOPS;
  return clientKey(request.headers.get("x-forwarded-for"), peer, hops + (options.appProxy ? 1 : 0));
}
