// Keyboard-only walks in Chromium: Tab (or Shift+Tab) from where focus is to a target, as a keyboard user would,
// checking at each stop that focus is on a real element, that it is visible (the element is on screen and
// something around it changes when it has focus: an outline, a ring, a colour; WCAG 2.4.7), and that focus moves in
// document order (no positive tabindex, no script throwing it elsewhere; WCAG 2.4.3). Works on any Page.
import type { Locator, Page } from "playwright-core";

export interface FocusStop {
  /** What a screen reader would roughly call it: its role or tag, then its label or text. */
  label: string;
  /** True when focus sits on an element that is in the page after the previous stop (or is the first stop). */
  inOrder: boolean;
  /** True when the focused element is shown and its focus indicator can be seen. */
  visible: boolean;
}

const ORDER_MARK = "data-keyboard-walk-previous";

async function describeFocus(
  page: Page,
): Promise<{
  label: string;
  same: boolean;
  inOrder: boolean;
  box: { x: number; y: number; width: number; height: number } | null;
}> {
  return page.evaluate((mark) => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body)
      return { label: "(nothing: the page itself)", same: false, inOrder: false, box: null };
    const previous = document.querySelector(`[${mark}]`);
    // Tab within one control (a date input's day, month and year) is not a new stop.
    if (previous === el) return { label: "", same: true, inOrder: true, box: null };
    const inOrder = !previous || !!(previous.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
    previous?.removeAttribute(mark);
    el.setAttribute(mark, "");
    const labelled = (el as HTMLInputElement).labels?.[0]?.innerText;
    const row = el.closest("tr")?.innerText.split("\n")[0]?.trim();
    const name = (el.getAttribute("aria-label") ?? (labelled || el.innerText || el.getAttribute("value") || ""))
      .trim()
      .replace(/\s+/g, " ");
    const text = `${name.slice(0, 60)}${row && !name.includes(row) ? ` (row ${row.slice(0, 30)})` : ""}`;
    const label = `${el.getAttribute("role") ?? el.tagName.toLowerCase()}${el.getAttribute("type") ? `[${el.getAttribute("type")}]` : ""} "${text}"`;
    // A visually hidden input (Polaris' checkboxes) shows its focus on the control drawn around it.
    let shown: HTMLElement | null = el;
    while (shown && (shown.getBoundingClientRect().width < 8 || shown.getBoundingClientRect().height < 8))
      shown = shown.parentElement;
    const r = (shown ?? el).getBoundingClientRect();
    const onScreen =
      r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
    return { label, same: false, inOrder, box: onScreen ? { x: r.x, y: r.y, width: r.width, height: r.height } : null };
  }, ORDER_MARK);
}

/**
 * Whether the focus indicator shows: the area around the focused element, pictured with focus and again with focus
 * taken away, differs. Focus is put back afterwards (programmatically, on the same element).
 */
async function focusIndicatorShows(
  page: Page,
  box: { x: number; y: number; width: number; height: number },
): Promise<boolean> {
  const viewport = page.viewportSize() ?? { width: 1280, height: 800 };
  const x = Math.max(0, Math.floor(box.x - 6));
  const y = Math.max(0, Math.floor(box.y - 6));
  const clip = {
    x,
    y,
    width: Math.min(viewport.width - x, Math.ceil(box.width + 12)),
    height: Math.min(viewport.height - y, Math.ceil(box.height + 12)),
  };
  await page.waitForTimeout(150); // let a focus ring's transition finish
  const focused = await page.screenshot({ clip, animations: "disabled", caret: "initial" });
  await page.evaluate((mark) => (document.querySelector(`[${mark}]`) as HTMLElement | null)?.blur(), ORDER_MARK);
  await page.waitForTimeout(150);
  const blurred = await page.screenshot({ clip, animations: "disabled", caret: "initial" });
  await page.evaluate((mark) => (document.querySelector(`[${mark}]`) as HTMLElement | null)?.focus(), ORDER_MARK);
  return !focused.equals(blurred);
}

/** Forgets the previous stop (after a navigation or when a walk starts somewhere new). */
export async function startWalk(page: Page) {
  await page.evaluate((mark) => document.querySelector(`[${mark}]`)?.removeAttribute(mark), ORDER_MARK);
}

/**
 * Presses Tab (Shift+Tab with `backwards`) until `target` has focus, at most `max` times; throws, listing every stop,
 * if it never does or if any stop on the way is not visible or out of order. Returns the stops.
 */
export async function tabTo(
  page: Page,
  target: Locator,
  options: { backwards?: boolean; max?: number } = {},
): Promise<FocusStop[]> {
  const stops: FocusStop[] = [];
  const key = options.backwards ? "Shift+Tab" : "Tab";
  for (let i = 0; i < (options.max ?? 60); i++) {
    await page.keyboard.press(key);
    const { label, same, inOrder, box } = await describeFocus(page);
    if (same) continue;
    const visible = box !== null && (await focusIndicatorShows(page, box));
    stops.push({ label, inOrder: options.backwards ? true : inOrder, visible });
    const bad = stops.filter((s) => !s.visible || !s.inOrder);
    if (bad.length > 0)
      throw new Error(
        `keyboard walk: focus not visible or out of order at ${bad.map((s) => s.label).join(", ")}\n${listStops(stops)}`,
      );
    if (
      await target
        .evaluate((el) => el === document.activeElement || el.contains(document.activeElement))
        .catch(() => false)
    )
      return stops;
  }
  throw new Error(`keyboard walk: ${key} ${options.max ?? 60} times never reached the target\n${listStops(stops)}`);
}

const listStops = (stops: FocusStop[]) =>
  stops
    .map(
      (s, i) => `  ${i + 1}. ${s.label}${s.visible ? "" : " (focus not visible)"}${s.inOrder ? "" : " (out of order)"}`,
    )
    .join("\n");
