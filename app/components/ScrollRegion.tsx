// Polaris' DataTable scrolls sideways when its columns do not fit the width (a phone, a narrow admin), in a
// container keyboard users cannot reach: nothing inside it takes focus (WCAG 2.1.1, axe's
// scrollable-region-focusable). Wrapped in this, that container is a named region in the tab order, so the arrow
// keys scroll it. DataTable has no prop for it; the class name is Polaris' own, and the accessibility tests fail
// if it ever stops matching.
import { useEffect, useRef, type ReactNode } from "react";

const SCROLLERS = ".Polaris-DataTable__ScrollContainer";

export function ScrollRegion({ label, children }: { label: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    for (const scroller of ref.current?.querySelectorAll<HTMLElement>(SCROLLERS) ?? []) {
      scroller.tabIndex = 0;
      scroller.setAttribute("role", "region");
      scroller.setAttribute("aria-label", label);
    }
  });
  return <div ref={ref}>{children}</div>;
}
