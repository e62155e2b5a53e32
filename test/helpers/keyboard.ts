// Keyboard-only walks in Chromium: Tab (or Shift+Tab) from where focus is to a target, as a keyboard user would,
// checking at each stop that focus is on a real element, that it is visible (the element is on screen and
// something around it changes when it has focus: an outline, a ring, a colour; WCAG 2.4.7), and that focus moves in
// document order (no positive tabindex, no script throwing it elsewhere; WCAG 2.4.3). Works on any Page.
import type { ElementHandle, Frame, JSHandle, Locator, Page } from "playwright-core";

export interface FocusStop {
  /** What a screen reader would roughly call it: its role or tag, then its label or text. */
  label: string;
  /** True when focus sits on an element that is in the page after the previous stop (or is the first stop). */
  inOrder: boolean;
  /** True when the focused element is shown and its focus indicator can be seen. */
  visible: boolean;
}

/**
 * Where focus is: the focused element of the page, and when that is a frame or a component with a shadow root, the
 * focused element inside it, and so on down (a UI extension's button sits in a shadow root inside a frame). One
 * element per document or shadow tree, outermost first; empty when nothing has focus.
 */
async function focusChain(page: Page): Promise<ElementHandle<Element>[]> {
  const chain: ElementHandle<Element>[] = [];
  let frame: Frame | null = page.mainFrame();
  while (frame) {
    const list: JSHandle<Element[]> = await frame.evaluateHandle(() => {
      const found: Element[] = [];
      let el: Element | null = document.activeElement;
      if (!el || el === document.body) return found;
      for (; el; el = el.shadowRoot?.activeElement ?? null) found.push(el);
      return found;
    });
    const inside: ElementHandle<Element>[] = [...(await list.getProperties()).values()].flatMap(
      (h) => (h.asElement() as ElementHandle<Element> | null) ?? [],
    );
    await list.dispose();
    chain.push(...inside);
    frame = inside.length ? await inside[inside.length - 1].contentFrame() : null;
  }
  return chain;
}

// The previous stop of each page's walk.
const previousStops = new WeakMap<Page, ElementHandle<Element>[]>();

/**
 * Whether `chain` comes after `previous` in the order a reader meets them: the first level where they differ is in
 * one document or shadow tree, and there the new element must follow the old one. "same" when nothing changed.
 */
async function orderAfter(previous: ElementHandle<Element>[] | undefined, chain: ElementHandle<Element>[]) {
  if (!previous) return "first";
  for (let i = 0; i < chain.length; i++) {
    if (i >= previous.length) return "after"; // inside the previous stop (a frame or a component's own control)
    const relation = await chain[i]
      .evaluate((el, before) => {
        if (el === before) return "same";
        if (!before.isConnected || before.getRootNode() !== el.getRootNode()) return "first"; // the old one is gone
        return before.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING ? "after" : "before";
      }, previous[i])
      .catch(() => "first" as const); // the previous stop's document is gone (a navigation)
    if (relation !== "same") return relation;
  }
  return chain.length === previous.length ? "same" : "before"; // now on an element that holds the previous stop
}

/**
 * What a screen reader would roughly call the focused element at the end of `chain`: the frames it is in, by their
 * titles; then its role or tag with its label or text, and a component's own control by its component.
 */
async function labelOf(chain: ElementHandle<Element>[]): Promise<string> {
  const frames: string[] = [];
  for (const el of chain.slice(0, -1))
    frames.push(...(await el.evaluate((f) => (f instanceof HTMLIFrameElement ? [`in "${f.title || f.name}": `] : []))));
  const text = await chain[chain.length - 1].evaluate((el) => {
    const host = (el.getRootNode() as ShadowRoot).host as HTMLElement | undefined;
    const labelled = (el as HTMLInputElement).labels?.[0]?.innerText;
    const row = el.closest("tr")?.innerText.split("\n")[0]?.trim();
    // A component's own control shows the component's text (through its slot).
    const name = (
      el.getAttribute("aria-label") ??
      (labelled ||
        (el as HTMLElement).innerText ||
        host?.innerText ||
        el.getAttribute("value") ||
        el.getAttribute("title") ||
        "")
    )
      .trim()
      .replace(/\s+/g, " ");
    const type = el.getAttribute("type") ? `[${el.getAttribute("type")}]` : "";
    const role = `${host ? `${host.localName} > ` : ""}${el.getAttribute("role") ?? el.tagName.toLowerCase()}${type}`;
    return `${role} "${name.slice(0, 60)}${row && !name.includes(row) ? ` (row ${row.slice(0, 30)})` : ""}"`;
  });
  return frames.join("") + text;
}

/** Where focus is now, described as the walk describes its stops; null when nothing has focus. */
export async function focusedLabel(page: Page): Promise<string | null> {
  const chain = await focusChain(page);
  return chain.length ? labelOf(chain) : null;
}

async function describeFocus(page: Page): Promise<{
  label: string;
  same: boolean;
  inOrder: boolean;
  box: { x: number; y: number; width: number; height: number } | null;
}> {
  const chain = await focusChain(page);
  const focused = chain[chain.length - 1];
  if (!focused) return { label: "(nothing: the page itself)", same: false, inOrder: false, box: null };
  const order = await orderAfter(previousStops.get(page), chain);
  if (order === "same") return { label: "", same: true, inOrder: true, box: null }; // Tab within one control
  previousStops.set(page, chain);
  const label = await labelOf(chain);
  // Where the focus shows, on the page (a frame's content included). A visually hidden input (Polaris' checkboxes)
  // shows it on the control drawn around it.
  const shown = (await focused.evaluateHandle((el) => {
    let s: Element | null = el;
    while (s && (s.getBoundingClientRect().width < 8 || s.getBoundingClientRect().height < 8)) s = s.parentElement;
    return s ?? el;
  })) as ElementHandle<Element>;
  const r = await shown.boundingBox();
  const viewport = page.viewportSize() ?? { width: 1280, height: 800 };
  const onScreen =
    r !== null &&
    r.width > 0 &&
    r.height > 0 &&
    r.y + r.height > 0 &&
    r.x + r.width > 0 &&
    r.y < viewport.height &&
    r.x < viewport.width;
  return { label, same: false, inOrder: order !== "before", box: onScreen ? r : null };
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
  const focused = previousStops.get(page)!.at(-1)!;
  const withFocus = await settledScreenshot(page, clip); // a focus ring's transition finished
  // Focus taken away for good: blur() leaves it in a date field that Shift+Tab entered (in the field's last part), so
  // it moves to a stand-in off screen, which then goes.
  await focused.evaluate((el) => {
    (el as HTMLElement).blur();
    if (el.ownerDocument.activeElement !== el) return;
    const elsewhere = el.ownerDocument.createElement("span");
    elsewhere.tabIndex = -1;
    elsewhere.style.cssText = "position: fixed; left: -10000px; top: 0";
    el.ownerDocument.body.append(elsewhere);
    elsewhere.focus();
    elsewhere.addEventListener("blur", () => elsewhere.remove(), { once: true });
  });
  const blurred = await settledScreenshot(page, clip);
  await focused.evaluate((el) => (el as HTMLElement).focus());
  return !withFocus.equals(blurred);
}

/** The clip once two pictures 100 ms apart agree (a transition or a React re-render has finished), within 2 s. */
async function settledScreenshot(page: Page, clip: { x: number; y: number; width: number; height: number }) {
  const take = () => page.screenshot({ clip, animations: "disabled", caret: "initial" });
  let last = await take();
  for (let i = 0; i < 20; i++) {
    await page.waitForTimeout(100);
    const next = await take();
    if (next.equals(last)) return next;
    last = next;
  }
  return last;
}

/** Forgets the previous stop (after a navigation or when a walk starts somewhere new). */
export async function startWalk(page: Page) {
  previousStops.delete(page);
}

/** Whether focus is on `target` or inside it (in its frame, or in its shadow root). */
async function reached(page: Page, target: Locator): Promise<boolean> {
  const element = await target.elementHandle({ timeout: 1_000 }).catch(() => null);
  if (!element) return false;
  const frame = await element.ownerFrame();
  for (const el of await focusChain(page)) {
    if ((await el.ownerFrame()) !== frame) continue;
    if (await element.evaluate((t, f) => t === f || t.contains(f), el)) return true;
  }
  return false;
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
    if (await reached(page, target)) return stops;
  }
  throw new Error(`keyboard walk: ${key} ${options.max ?? 60} times never reached the target\n${listStops(stops)}`);
}

const listStops = (stops: FocusStop[]) =>
  stops
    .map(
      (s, i) => `  ${i + 1}. ${s.label}${s.visible ? "" : " (focus not visible)"}${s.inOrder ? "" : " (out of order)"}`,
    )
    .join("\n");
