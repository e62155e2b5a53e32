// Where the server may send requests on a merchant's behalf. The service URLs come from the settings page, so
// without a policy they could point the server at itself, the internal network or a cloud metadata endpoint
// (server-side request forgery). Rules (docs/security.md):
// - a service URL is https, with no user name, password, query or fragment (settings validation, checkServiceUrl);
// - every connection goes to a public address only, checked on the address actually dialled (a lookup hook on
//   the connection, so a name that re-resolves to 127.0.0.1 after the save - DNS rebinding - is still refused);
// - loopback (and plain http to it) only with ALLOW_LOOPBACK_SERVICE_URLS=true, for local development, the demo
//   and the tests; link-local, metadata, private and other reserved ranges never;
// - redirects are never followed (the client reads 3xx as an answer).
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { Agent } from "undici";
import { env } from "../env.server";
import { isLoopbackHost } from "../loopback";
import { serviceRequests, serviceRequestSeconds } from "../lib/metrics.server";

export interface AddressPolicy {
  allowLoopback: boolean;
}

export type AddressClass = "public" | "loopback" | "private" | "link_local" | "reserved";

function list(entries: [string, number, "ipv4" | "ipv6"][]) {
  const blocks = new BlockList();
  for (const [net, prefix, type] of entries) blocks.addSubnet(net, prefix, type);
  return blocks;
}

const LOOPBACK = list([
  ["127.0.0.0", 8, "ipv4"],
  ["::1", 128, "ipv6"],
]);
const PRIVATE = list([
  ["10.0.0.0", 8, "ipv4"],
  ["172.16.0.0", 12, "ipv4"],
  ["192.168.0.0", 16, "ipv4"],
  ["fc00::", 7, "ipv6"],
]);
// 169.254.169.254 (and fd00:ec2::254 under fc00::/7 above) is where clouds serve instance credentials.
const LINK_LOCAL = list([
  ["169.254.0.0", 16, "ipv4"],
  ["fe80::", 10, "ipv6"],
]);
const RESERVED = list([
  ["0.0.0.0", 8, "ipv4"],
  ["100.64.0.0", 10, "ipv4"], // carrier-grade NAT; also some clouds' metadata (100.100.100.200)
  ["192.0.0.0", 24, "ipv4"],
  ["192.0.2.0", 24, "ipv4"],
  ["198.18.0.0", 15, "ipv4"],
  ["198.51.100.0", 24, "ipv4"],
  ["203.0.113.0", 24, "ipv4"],
  ["224.0.0.0", 4, "ipv4"], // multicast
  ["240.0.0.0", 4, "ipv4"], // reserved, broadcast
  ["::", 128, "ipv6"],
  ["64:ff9b::", 96, "ipv6"], // NAT64: an IPv4 address in disguise
  ["2001:db8::", 32, "ipv6"],
  ["ff00::", 8, "ipv6"],
]);

export function classifyAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 0) return "reserved";
  // An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is the IPv4 address it carries.
  const mapped = family === 6 ? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] : undefined;
  if (mapped) return classifyAddress(mapped);
  const type = family === 4 ? "ipv4" : "ipv6";
  if (LOOPBACK.check(address, type)) return "loopback";
  if (LINK_LOCAL.check(address, type)) return "link_local";
  if (PRIVATE.check(address, type)) return "private";
  if (RESERVED.check(address, type)) return "reserved";
  return "public";
}

export function addressAllowed(address: string, policy: AddressPolicy): boolean {
  const kind = classifyAddress(address);
  return kind === "public" || (kind === "loopback" && policy.allowLoopback);
}

export function policyFromEnv(): AddressPolicy {
  return { allowLoopback: env().ALLOW_LOOPBACK_SERVICE_URLS === "true" };
}

const bareHost = (url: URL) => url.hostname.replace(/^\[|\]$/g, "");

/** What is wrong with a service URL as typed, as a code the admin words in its language (and the host concerned). */
export type UrlProblem = {
  code: "absolute_https" | "https_only" | "credentials" | "query" | "fragment" | "not_public";
  host?: string;
  /** not_public: what the address is (private, loopback, link-local …). */
  kind?: string;
};

/** Checks a service URL as typed; returns what is wrong, or null. */
export function serviceUrlProblem(value: string, policy: AddressPolicy): UrlProblem | null {
  const url = URL.canParse(value) ? new URL(value) : null;
  if (!url || !/^https?:$/.test(url.protocol)) return { code: "absolute_https" };
  const host = bareHost(url);
  const loopbackOk = policy.allowLoopback && isLoopbackHost(host);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopbackOk)) return { code: "https_only" };
  if (url.username || url.password) return { code: "credentials" };
  if (url.search || value.includes("?")) return { code: "query" };
  if (url.hash || value.includes("#")) return { code: "fragment" };
  if (isIP(host) && !addressAllowed(host, policy))
    return { code: "not_public", host, kind: classifyAddress(host).replace("_", "-") };
  if (!isIP(host) && isLoopbackHost(host) && !policy.allowLoopback)
    return { code: "not_public", host, kind: "loopback" };
  return null;
}

/** The same in English (logs, the API's answer). `label` names the field. */
export function urlProblemText(problem: UrlProblem, label: string): string {
  switch (problem.code) {
    case "absolute_https":
      return `${label} must be an absolute https address, e.g. https://api.example.com`;
    case "https_only":
      return `${label} must start with https://`;
    case "credentials":
      return `${label} must not contain a user name or password`;
    case "query":
      return `${label} must not contain a query (?…)`;
    case "fragment":
      return `${label} must not contain a fragment (#…)`;
    case "not_public":
      return `${label} must be a public address (${problem.host} is ${problem.kind})`;
  }
}

/** Checks a service URL as typed; returns what is wrong in plain words, or null. `label` names the field. */
export function checkServiceUrl(value: string, label: string, policy: AddressPolicy): string | null {
  const problem = serviceUrlProblem(value, policy);
  return problem && urlProblemText(problem, label);
}

/** The error a refused connection fails with; `code` names it in messages ("address not allowed"). */
export class AddressRefusedError extends Error {
  readonly code = "ERR_ADDRESS_REFUSED";
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address} (${classifyAddress(address).replace("_", "-")}), which is not allowed`);
  }
}

/** A lookup for net.connect that resolves as usual, then refuses any address the policy does not allow. */
export function guardedLookup(policy: AddressPolicy, resolve: typeof dnsLookup = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const all = addresses as LookupAddress[];
      const refused = all.find((a) => !addressAllowed(a.address, policy));
      if (refused || all.length === 0) {
        return callback(new AddressRefusedError(hostname, refused?.address ?? "nothing"), "", 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, all);
      callback(null, all[0].address, all[0].family);
    });
  };
}

const agents = new Map<boolean, Agent>();

/** The service's endpoints as a metric label (a fixed set), by the end of the path (a base URL may have a path). */
const ENDPOINT_LABELS: [suffix: string, label: string][] = [
  ["/api/v1/orders", "orders"],
  ["/api/v1/shipments", "shipments"],
  ["/api/v1/cart-handoffs", "cart_handoffs"],
  ["/oauth/token", "oauth_token"],
  ["/oauth/revoke", "oauth_revoke"],
];
const endpointLabel = (pathname: string) =>
  ENDPOINT_LABELS.find(([suffix]) => pathname.endsWith(suffix))?.[1] ?? "other";

/** service_requests_total and service_request_seconds for one request: the status, or why there is none. */
async function measured(url: URL, send: () => Promise<Response>): Promise<Response> {
  const endpoint = endpointLabel(url.pathname);
  const started = performance.now();
  let status: string;
  try {
    const response = await send();
    status = String(response.status);
    return response;
  } catch (error) {
    status =
      (error as Error)?.name === "TimeoutError" || (error as Error)?.name === "AbortError"
        ? "timeout"
        : "network_error";
    throw error;
  } finally {
    serviceRequests.series(endpoint, status!).inc();
    serviceRequestSeconds.series(endpoint).observe((performance.now() - started) / 1000);
  }
}

/**
 * fetch for the service: every connection's address is checked (guardedLookup; an IP literal, which skips the
 * lookup, is checked here), and redirects are never followed. Every request it sends is counted (the metrics'
 * "service" family, docs/operations.md).
 */
export function guardedFetch(policy: AddressPolicy): typeof fetch {
  let agent = agents.get(policy.allowLoopback);
  if (!agent) {
    agent = new Agent({ connect: { lookup: guardedLookup(policy) } });
    agents.set(policy.allowLoopback, agent);
  }
  const dispatcher = agent;
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const host = bareHost(url);
    if (isIP(host) && !addressAllowed(host, policy)) {
      throw new TypeError("fetch failed", { cause: new AddressRefusedError(host, host) });
    }
    // `dispatcher` is Node's (undici's) extension to RequestInit.
    return measured(url, () => globalThis.fetch(input, { ...init, redirect: "manual", dispatcher } as RequestInit));
  };
}
