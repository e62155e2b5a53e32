// The address a request came from, as the outermost proxy we trust saw it. Every proxy appends the address it
// saw (its peer) to X-Forwarded-For, so the entries are only as trustworthy as the hop that wrote them: the
// rightmost is our load balancer's, the leftmost is whatever the client wrote. Counting trusted hops from the
// right (never taking the leftmost) is the only reading a client cannot choose (docs/security.md).

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
