// The extension hosts' `shopify` global and the surface's other globals (customer accounts: `navigation`), given
// exactly as Shopify's published types give them to the target (./target-api.ts derives the lists): a member the
// target does not get, or one the stand-in does not implement, throws where it is touched and is recorded as a
// violation, so a test cannot pass on an API Shopify would not give (Shopify would hand the extension `undefined`
// there, which hides the mistake until a real store). Browser-safe: the hosts bundle it into their frames.

/** The API lists of one target, as ./target-api.ts derives them (the part the browser needs). */
export interface TargetApiLists {
  target: string;
  apiVersion: string;
  shopify: Record<string, string[]>;
  globals: Record<string, string[]>;
}

export type ViolationReport = (message: string) => void;

// Read by Shopify's own @shopify/ui-extensions/preact (it hands the runtime its Signal class when the runtime offers
// setSignals), and the ones JavaScript itself probes (a Promise resolving to the object asks for `then`).
const PROBED = new Set(["setSignals", "then", "toJSON"]);

function strict<T extends object>(
  value: T,
  path: string,
  allowed: string[],
  report: ViolationReport,
  target: string,
): T {
  const known = new Set(allowed);
  return new Proxy(value, {
    get(obj, key, receiver) {
      if (typeof key === "symbol" || PROBED.has(key)) return Reflect.get(obj, key, receiver);
      if (!known.has(key)) {
        const message = `${path}.${key} is not part of the API Shopify gives ${target}`;
        report(message);
        throw new Error(message);
      }
      if (!(key in obj)) {
        const message = `${path}.${key} is given by Shopify to ${target}, but this stand-in does not implement it`;
        report(message);
        throw new Error(message);
      }
      return Reflect.get(obj, key, receiver);
    },
    has(obj, key) {
      return typeof key === "string" ? known.has(key) && key in obj : Reflect.has(obj, key);
    },
  });
}

/**
 * `shopify` for a target: each member the types list, from `implementation` (nested objects strict too, by their
 * own members); anything else throws and is reported.
 */
export function strictShopify(api: TargetApiLists, implementation: Record<string, unknown>, report: ViolationReport) {
  const members: Record<string, unknown> = {};
  for (const [name, nested] of Object.entries(api.shopify)) {
    if (!(name in implementation)) continue;
    const value = implementation[name];
    members[name] =
      value && typeof value === "object" && nested.length > 0
        ? strict(value, `shopify.${name}`, nested, report, api.target)
        : value;
  }
  if (typeof implementation.setSignals === "function") members.setSignals = implementation.setSignals;
  return strict(members, "shopify", Object.keys(api.shopify), report, api.target);
}

/** A surface global (customer accounts: `navigation`) with the members the target gets, or null when it gets none. */
export function strictGlobal(
  api: TargetApiLists,
  name: string,
  implementation: Record<string, unknown>,
  report: ViolationReport,
) {
  const allowed = api.globals[name];
  if (!allowed) return null;
  const members = Object.fromEntries(allowed.filter((m) => m in implementation).map((m) => [m, implementation[m]]));
  return strict(members, name, allowed, report, api.target);
}
