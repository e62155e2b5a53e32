import { describe, expect, it } from "vitest";
import { describeIssues, OrderRequestSchema } from ".";
import { isRfc3339DateTime } from "./formats";

describe("date-time format", () => {
  it.each(["2026-01-31T12:00:00Z", "2026-01-31t12:00:00.123z", "2024-02-29T00:00:00+05:30", "2026-12-31T23:59:60Z"])(
    "accepts %s",
    (value) => expect(isRfc3339DateTime(value)).toBe(true),
  );
  it.each([
    "2026-02-30T00:00:00Z",
    "2026-04-31T00:00:00Z",
    "2026-01-01T24:00:00Z",
    "2026-01-01T12:00Z",
    "2026-01-01T12:00:00",
    "2026-13-01T00:00:00Z",
    "2026-01-01T00:00:00+24:00",
  ])("rejects %s", (value) => expect(isRfc3339DateTime(value)).toBe(false));
});

describe("describeIssues", () => {
  it("names missing fields, wrong types and unexpected fields in plain words", () => {
    const result = OrderRequestSchema.safeParse({
      ordered_at: "2026-01-01T00:00:00Z",
      lines: [{ external_line_id: "a", title: "Mug", quantity: "2", colour: "blue" }],
    });
    expect(result.success).toBe(false);
    const text = describeIssues(result.error!);
    expect(text).toContain("external_order_id: is required");
    expect(text).toMatch(/lines\[0\]\.quantity: Invalid input: expected number, received string/);
    expect(text).toContain("lines[0]: unexpected field(s) colour");
  });
});
