// What never reaches a log line, whoever writes it (the app's own lines and Shopify's libraries' alike): tokens
// (JWT session and id tokens, Shopify's shp*_ access tokens, bearer credentials), signatures and HMACs, and query
// strings (they carry these, OAuth codes and states too). Applied to every field and message by the one logger
// (./logger.server.ts). Escaping is pino's: every value is a JSON string, so a newline in a request value never
// starts a line of its own.

const R = "[redacted]";

/** Fields whose value is a secret whatever it looks like (compared lower-case, without "_" and "-"). */
const SECRET_KEYS = new Set([
  "idtoken",
  "token",
  "accesstoken",
  "refreshtoken",
  "sessiontoken",
  "authorization",
  "hmac",
  "signature",
  "clientsecret",
  "signingsecret",
  "password",
  "secret",
]);

const isSecretKey = (key: string) => SECRET_KEYS.has(key.toLowerCase().replace(/[-_]/g, ""));

const KEY_NAMES =
  "id_token|session_?token|access_?token|refresh_?token|token|hmac|signature|client_?secret|password|authorization";
const PATTERNS: [RegExp, string][] = [
  // A JWT anywhere (session tokens, id tokens): three base64url parts, the first a JSON header.
  [/eyJ[\w-]*\.[\w-]*\.[\w-]*/g, R],
  // Shopify's access tokens and secrets (shpat_, shpca_, shpua_, shppa_, shpss_ …).
  [/\bshp[a-z]{2}_[\w-]+/gi, R],
  [/\bBearer\s+[^\s,;"'}]+/gi, `Bearer ${R}`],
  // The query string of any URL: everything after "?" up to a space, a quote or a closing bracket.
  [/(\bhttps?:\/\/[^\s?#"'<>]*)\?[^\s"'<>)}\]]*/gi, `$1?${R}`],
  // key=value, key: value and "key":"value" for the keys above (Shopify's library writes its context as key: value).
  [new RegExp(`(["']?\\b(?:${KEY_NAMES})["']?\\s*[:=]\\s*)("[^"]*"|'[^']*'|[^\\s,;&}\\]]+)`, "gi"), `$1${R}`],
];

/** A message or value with every secret-looking part replaced by "[redacted]". */
export function redactText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** A log line's fields, redacted: secret keys blanked, strings scrubbed, nested objects to a few levels. */
export function redactFields(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactText(value);
  if (!value || typeof value !== "object" || depth > 4) return value;
  if (Array.isArray(value)) return value.map((v) => redactFields(v, depth + 1));
  if (value instanceof Error)
    return { name: value.name, message: redactText(value.message), stack: value.stack && redactText(value.stack) };
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value))
    out[key] = isSecretKey(key) && v != null ? R : redactFields(v, depth + 1);
  return out;
}
