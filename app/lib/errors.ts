// The message of anything thrown, for logs and plain-words outcomes (a non-Error throw becomes its string form).
// Callers decide whether it may be shown: it is never assumed free of secrets beyond what they passed in.
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Only the kind of error (its class name), where even its message might carry something secret. */
export function errorName(error: unknown): string {
  return error instanceof Error ? error.name : "unknown";
}
