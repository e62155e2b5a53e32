// What the README and docs/privacy.md say is stored about people, held to the schema: every column that can hold a
// person's name, email, phone or address is named in both, and both name no column the schema does not have.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

/** `Model.field` of every String column of the schema. */
function stringColumns(schema: string): string[] {
  const out: string[] = [];
  let model = "";
  for (const line of schema.split("\n")) {
    const start = /^model (\w+) \{/.exec(line);
    if (start) model = start[1];
    const field = /^\s+(\w+)\s+String\??(\s|$)/.exec(line);
    if (model && field) out.push(`${model}.${field[1]}`);
    if (/^\}/.test(line)) model = "";
  }
  return out;
}

// Columns whose names look personal but are not: an order's number ("#1001").
const NOT_PERSONAL = new Set(["SyncRecord.orderName"]);
const personal = stringColumns(read("prisma/schema.prisma"))
  .filter((c) => /(name|email|phone|address)$/i.test(c.split(".")[1]) && !NOT_PERSONAL.has(c))
  .sort();

const mentioned = (text: string) => [...text.matchAll(/`(\w+)\.(\w+)`/g)].map((m) => `${m[1]}.${m[2]}`);

describe("what is stored about people", () => {
  it("finds the personal columns in the schema", () => {
    expect(personal).toContain("CustomerGrant.customerEmail");
    expect(personal.length).toBeGreaterThanOrEqual(4);
  });

  it("docs/privacy.md lists exactly those columns", () => {
    const privacy = read("docs/privacy.md");
    const section = /\*\*Columns that hold a person's name or email\*\*([\s\S]*?)\n\n/.exec(privacy)?.[1] ?? "";
    const listed = [...new Set(mentioned(section).filter((c) => /(name|email|phone|address)$/i.test(c)))].sort();
    expect(listed).toEqual(personal);
  });

  it("the README's privacy section names each of them and promises nothing the schema contradicts", () => {
    const readme = read("README.md");
    const section = /## Privacy\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? "";
    const named = new Set(mentioned(section));
    for (const column of personal) expect(named.has(column), column).toBe(true);
    // No blanket "no email is stored" while a column holds one: such a sentence must say it is about orders.
    for (const sentence of section.replace(/\n/g, " ").split(/(?<=[.;:])\s/)) {
      if (/\bno (email|e-mail)\b/i.test(sentence)) expect(sentence).toMatch(/from an order/);
    }
  });
});
