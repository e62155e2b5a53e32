// axe-core (Deque's accessibility engine) in a Playwright page or frame: the WCAG 2.0, 2.1 and 2.2 A and AA rules,
// none turned off. `axeViolations` injects axe into the target and every frame inside it (so a frame's content is
// checked too) and returns what it found; `expectAccessible` fails with each critical or serious violation spelled
// out: the rule, the elements it found and what to do. Works on any Page or Frame (an extension host's frame too).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { AxeResults, FrameContext, PartialResult, PartialResults, Result, RunOptions } from "axe-core";
import type { Frame, Page } from "playwright-core";

/** WCAG 2.0, 2.1 and 2.2 at levels A and AA (2.2 added no level A rule to axe). */
export const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] as const;

/** The impacts that fail a page. */
export const BLOCKING_IMPACTS = ["critical", "serious"] as const;

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

type Target = Page | Frame;
type AxeGlobal = {
  runPartial(context: unknown, options: RunOptions): Promise<PartialResult>;
  finishRun(partials: PartialResults, options: RunOptions): Promise<AxeResults>;
  utils: {
    getFrameContexts(context: unknown, options: RunOptions): FrameContext[];
    shadowSelect(selector: unknown): Element | null;
  };
};
declare const axe: AxeGlobal;

const OPTIONS: RunOptions = { runOnly: { type: "tag", values: [...WCAG_TAGS] }, resultTypes: ["violations"] };

async function inject(frame: Frame) {
  // Through the debugging protocol, so a page's Content-Security-Policy cannot keep axe out.
  await frame.evaluate(`window.axe || ${AXE_SOURCE.replace(/;\s*$/, "")}; void 0`);
}

// axe's own way across frames (what @axe-core/playwright does): each frame is checked by the axe inside it, in the
// order axe lists the frames, and the top frame's axe puts the results together. Cross-origin frames included.
async function runPartials(frame: Frame, context: unknown): Promise<PartialResults> {
  await inject(frame);
  const frames = await frame.evaluate(([c, o]) => axe.utils.getFrameContexts(c, o), [context, OPTIONS] as const);
  const partials: PartialResults = [
    await frame.evaluate(([c, o]) => axe.runPartial(c, o), [context, OPTIONS] as const),
  ];
  for (const { frameSelector, frameContext } of frames) {
    const handle = await frame.evaluateHandle((selector) => axe.utils.shadowSelect(selector), frameSelector);
    const child = await handle.asElement()?.contentFrame();
    await handle.dispose();
    partials.push(...(child ? await runPartials(child, frameContext) : [null]));
  }
  return partials;
}

/** Runs axe with WCAG_TAGS over `target` (a page, or a frame with the frames inside it): every violation, whatever its impact. */
export async function axeViolations(target: Target): Promise<Result[]> {
  const main = "mainFrame" in target ? target.mainFrame() : target;
  const partials = await runPartials(main, { include: [["html"]] });
  const results = await main.evaluate(([p, o]) => axe.finishRun(p, o), [partials, OPTIONS] as const);
  return results.violations;
}

/** The violations that fail a page: critical and serious. */
export const blocking = (violations: Result[]) =>
  violations.filter((v) => (BLOCKING_IMPACTS as readonly string[]).includes(v.impact ?? ""));

/** One readable paragraph per violation: rule, impact, help, then each element's selector and what to fix. */
export function describeViolations(violations: Result[]): string {
  return violations
    .map((v) => {
      const nodes = v.nodes.slice(0, 8).map((n) => {
        const fix = (n.failureSummary ?? "")
          .split("\n")
          .slice(1)
          .map((s) => s.trim())
          .filter(Boolean)
          .join("; ");
        return `    - ${n.target.map(String).join(" >>> ")}${fix ? `\n      ${fix}` : ""}`;
      });
      const more = v.nodes.length > 8 ? [`    - … and ${v.nodes.length - 8} more`] : [];
      return [`  ${v.id} (${v.impact}): ${v.help}`, `    ${v.helpUrl}`, ...nodes, ...more].join("\n");
    })
    .join("\n");
}

/**
 * Fails unless `target` has no critical or serious WCAG 2.x A/AA violation. `what` names the page and state in the
 * failure message. Returns every violation (minor and moderate ones included) for the caller to look at.
 */
export async function expectAccessible(target: Target, what: string): Promise<Result[]> {
  const violations = await axeViolations(target);
  const failing = blocking(violations);
  if (failing.length > 0) {
    throw new Error(
      `${what}: ${failing.length} critical or serious accessibility violation(s) (axe-core, ${WCAG_TAGS.join(", ")}):\n${describeViolations(failing)}`,
    );
  }
  return violations;
}
