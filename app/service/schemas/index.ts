// The service's wire schemas, shared by the app's client and the emulator.
import type { z } from "zod";

export * from "./cart-handoff-request";
export * from "./cart-handoff-response";
export * from "./order-request";
export * from "./shipment-request";
export * from "./resource-response";

/** Plain words for a validation failure, naming each failing field: `lines[0].quantity: must be greater than 0`. */
/** The paths of the fields a zod error names ("lines[0].sku"), at most 20: data an admin can read in any language. */
export function issuePaths(error: z.ZodError): string[] {
  const paths = error.issues.map((issue) =>
    issue.path.reduce<string>(
      (acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)),
      "",
    ),
  );
  return [...new Set(paths)].slice(0, 20);
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.reduce<string>(
        (acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)),
        "",
      );
      let message = issue.message;
      if (issue.code === "unrecognized_keys") message = `unexpected field(s) ${issue.keys.join(", ")}`;
      // Zod only reports the input when asked to; its message says "received undefined" for a missing field.
      if (issue.code === "invalid_type" && /received undefined$/.test(issue.message)) message = "is required";
      return path ? `${path}: ${message}` : message;
    })
    .join("; ");
}
