// Dates shown to merchants: "2026-11-22 05:14 UTC". Deterministic (no locale, no time zone), so the server's and
// the browser's renderings match and hydration never differs. Client-safe.

/** "2026-11-22 05:14 UTC" from a Date or an ISO string. */
export function formatUtc(value: Date | string): string {
  const iso = typeof value === "string" ? value : value.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** "05:14:00": the time of day in UTC, for "will try again at …". */
export function formatUtcTime(value: Date): string {
  return value.toISOString().slice(11, 19);
}
