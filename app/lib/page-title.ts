// The document title of every page the app renders (each route's `meta`): the page's own heading first, then the
// app's name, so a screen reader, a tab and the browser's history say which page this is (WCAG 2.4.2).
// test/accessibility/page-titles.test.ts fails for a page route without one. Client-safe.
const APP_NAME = "Merchant Integration";

export const pageTitle = (...parts: string[]) => [{ title: [...parts.filter(Boolean), APP_NAME].join(" · ") }];
