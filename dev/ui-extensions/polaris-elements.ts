// Stand-ins for the Polaris web components (s-*) the app's UI extensions render, defined in the host's window with
// the semantics Shopify's own components have, so assistive technology, keyboard use and tests see what a shopper or
// merchant gets: an s-button is a button (a link when it has an href), an s-link a link, an s-section or s-page a
// heading with its content, an s-banner a status (an alert when critical), an s-spinner a labelled progress
// indicator. Real controls live in each component's shadow root around a <slot>, as in Shopify's. Links and
// buttons with an href go through the host's `navigate`, which knows Shopify's protocols (extension:,
// shopify:customer-account/, app:). Looks are minimal. Shopify's own components come from its CDN, out of reach here.
// Browser-safe: takes the window to define them in (Chromium in the demo, happy-dom in tests).

export interface PolarisHost {
  /** Follows an href of a button or link (Shopify's protocols, or an https URL), with its target. */
  navigate(href: string, target: string | null): void;
}

/** The components defined here; an extension rendering any other s-* element is told by the host. */
export const COMPONENTS = [
  "s-admin-block",
  "s-badge",
  "s-banner",
  "s-box",
  "s-button",
  "s-divider",
  "s-heading",
  "s-link",
  "s-page",
  "s-paragraph",
  "s-section",
  "s-spinner",
  "s-stack",
  "s-text",
] as const;

const CONTROL_STYLE = `
  :host { display: inline-block; }
  .control { font: inherit; font-weight: 600; display: inline-block; padding: 8px 16px; border-radius: 8px; cursor: pointer;
    background: #fff; color: #1a1a1a; border: 1px solid #8a8a8a; text-decoration: none; }
  :host([variant="primary"]) .control { background: #1a1a1a; color: #fff; border-color: #1a1a1a; }
  :host([tone="critical"]:not([variant="primary"])) .control { color: #a0201a; border-color: #a0201a; }
  .control:focus-visible { outline: 2px solid #005bd3; outline-offset: 2px; }
  .control[disabled], .control[aria-disabled="true"] { opacity: .6; cursor: default; }
  a.link { font: inherit; color: #005bd3; text-decoration: underline; cursor: pointer; }
`;

const on = (el: Element, name: string) => el.hasAttribute(name) && el.getAttribute(name) !== "false";
const escapeText = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Defines the components in `win` (once); returns the tags it defined. */
export function definePolarisElements(win: Window & typeof globalThis, host: PolarisHost): readonly string[] {
  const Base = win.HTMLElement;

  abstract class Shadowed extends Base {
    static get observedAttributes() {
      return ["heading", "href", "target", "disabled", "loading", "tone", "variant", "accessibilitylabel"];
    }
    connectedCallback() {
      this.update();
    }
    attributeChangedCallback() {
      if (this.isConnected) this.update();
    }
    private html = "";
    protected root(html: string): void {
      const root = this.shadowRoot ?? this.attachShadow({ mode: "open" });
      if (this.html !== html) root.innerHTML = this.html = html;
    }
    abstract update(): void;
  }

  // A button, or a link when it has an href; Shopify's protocols are followed by the host.
  class Control extends Shadowed {
    constructor() {
      super();
      this.addEventListener("click", (event) => {
        const href = this.getAttribute("href");
        if (!href) return;
        event.preventDefault();
        if (on(this, "disabled")) return;
        host.navigate(href, this.getAttribute("target"));
      });
    }
    protected linkStyle = false;
    // The control is kept across updates (only its attributes change), so focus stays on it while it loads.
    update() {
      const root = this.shadowRoot ?? this.attachShadow({ mode: "open" });
      const href = this.getAttribute("href");
      const tag = href ? "a" : "button";
      let control = root.querySelector<HTMLElement>(".c");
      if (!control || control.localName !== tag) {
        const cls = this.linkStyle ? "link" : "control";
        root.innerHTML = `<style>${CONTROL_STYLE}</style><${tag} class="c ${cls}"${tag === "button" ? ' type="button"' : ""}><slot></slot></${tag}>`;
        control = root.querySelector<HTMLElement>(".c")!;
      }
      const blocked = on(this, "disabled") || on(this, "loading");
      const set = (name: string, value: string | null) =>
        value === null ? control.removeAttribute(name) : control.setAttribute(name, value);
      set("href", href);
      set("disabled", tag === "button" && blocked ? "" : null);
      set("aria-disabled", tag === "a" && blocked ? "true" : null);
      set("aria-busy", on(this, "loading") ? "true" : null);
      set("aria-label", this.getAttribute("accessibilitylabel"));
    }
  }
  class Link extends Control {
    protected linkStyle = true;
  }

  // A titled region: its heading is a real heading (h1 on a page, h2 otherwise).
  const titled = (level: 1 | 2, tag: "section" | "div") =>
    class extends Shadowed {
      update() {
        const heading = this.getAttribute("heading");
        const title = heading
          ? `<h${level} part="heading" style="margin:0 0 10px;font-size:${level === 1 ? 24 : 17}px">${escapeText(heading)}</h${level}>`
          : "";
        this.root(`<${tag}>${title}<slot></slot></${tag}>`);
      }
    };

  class Banner extends Shadowed {
    update() {
      const role = this.getAttribute("tone") === "critical" ? "alert" : "status";
      const heading = this.getAttribute("heading");
      this.root(`<div role="${role}">${heading ? `<strong>${escapeText(heading)}</strong> ` : ""}<slot></slot></div>`);
    }
  }
  // Named by its accessibilityLabel only: Shopify leaves the label to the extension, so none is made up here (a
  // spinner without one has no name, and the accessibility checks say so).
  class Spinner extends Shadowed {
    update() {
      const label = this.getAttribute("accessibilitylabel");
      this.root(
        `<span role="progressbar"${label ? ` aria-label="${escapeText(label)}"` : ""} style="display:inline-block;width:14px;height:14px"></span>`,
      );
    }
  }
  class HeadingEl extends Shadowed {
    update() {
      this.root(`<h2 style="margin:0;font-size:17px"><slot></slot></h2>`);
    }
  }
  class Paragraph extends Shadowed {
    update() {
      this.root(`<p style="margin:0"><slot></slot></p>`);
    }
  }
  // Layout and text: no role of their own (their content speaks), as in Shopify's.
  class Plain extends Base {}

  const classes: Record<(typeof COMPONENTS)[number], CustomElementConstructor> = {
    "s-admin-block": titled(2, "section"),
    "s-badge": class extends Plain {},
    "s-banner": Banner,
    "s-box": class extends Plain {},
    "s-button": Control,
    "s-divider": class extends Plain {},
    "s-heading": HeadingEl,
    "s-link": Link,
    "s-page": titled(1, "div"),
    "s-paragraph": Paragraph,
    "s-section": titled(2, "section"),
    "s-spinner": Spinner,
    "s-stack": class extends Plain {},
    "s-text": class extends Plain {},
  };
  for (const [tag, cls] of Object.entries(classes))
    if (!win.customElements.get(tag)) win.customElements.define(tag, cls);
  return COMPONENTS;
}

/** Reports every s-* element in `root` (now and later) that no component here renders. */
export function watchUnknownComponents(win: Window & typeof globalThis, report: (message: string) => void) {
  const seen = new Set<string>();
  const check = (node: Node) => {
    if (!(node instanceof win.Element)) return;
    for (const el of [node, ...node.querySelectorAll("*")]) {
      const tag = el.tagName.toLowerCase();
      if (tag.startsWith("s-") && !win.customElements.get(tag) && !seen.has(tag)) {
        seen.add(tag);
        report(`<${tag}> is not rendered by this stand-in`);
      }
    }
  };
  new win.MutationObserver((records) => records.forEach((r) => r.addedNodes.forEach(check))).observe(
    win.document.documentElement,
    {
      childList: true,
      subtree: true,
    },
  );
}
