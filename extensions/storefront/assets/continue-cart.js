// Continue cart: reads the cart afresh from /cart.js, posts its token, variant ids and quantities to the app proxy
// and sends the shopper to the claim URL it answers. On failure it shows the message (already in the shopper's
// language) and leaves the cart alone. No framework; messages go in as text, never as HTML.
//
// It acts only on its own forms: one inside the block it was rendered by (the form's data-continue-cart names the
// block's data-continue-cart-block around it), or a copy of the embed's template this script placed itself; and
// only when the form posts to the store's own app proxy. Any other form[data-continue-cart] on the page is left
// to itself. It navigates only to a claim URL on the service origin the app names in the same answer, over https
// (http only on a loopback host: the local demo; app/handoff/claim-url.server.ts has the same rule on the server).
(function () {
  "use strict";
  if (window.__continueCart) return;
  window.__continueCart = true;

  var placed = new WeakSet(); // the embed's copies this script made (an attribute could be copied; this cannot)
  var PROXY_CART = /^(\/[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*)?\/(apps|a|community|tools)\/[A-Za-z0-9_-]{1,64}\/cart$/;
  var LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

  function ownForm(form) {
    var id = form.getAttribute("data-continue-cart");
    if (id === null) return false;
    var block = form.parentElement && form.parentElement.closest("[data-continue-cart-block]");
    var mine = placed.has(form) || (!!id && !!block && block.getAttribute("data-continue-cart-block") === id);
    if (!mine) return false;
    try {
      var action = new URL(form.getAttribute("action") || "", window.location.href);
      return action.origin === window.location.origin && PROXY_CART.test(action.pathname);
    } catch (e) {
      return false;
    }
  }

  function claimAllowed(claim, origin) {
    if (typeof claim !== "string" || typeof origin !== "string") return false;
    try {
      var url = new URL(claim);
      if (url.origin !== new URL(origin).origin || url.username || url.password) return false;
      return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.test(url.hostname));
    } catch (e) {
      return false;
    }
  }

  function showMessage(form, message) {
    var box = form.querySelector(".continue-cart__message");
    if (!box) return;
    box.textContent = message;
    box.hidden = false;
  }

  function setBusy(form, busy) {
    var button = form.querySelector("button[type=submit]");
    if (!button) return;
    if (busy) {
      button.setAttribute("data-label", button.textContent);
      button.textContent = form.getAttribute("data-busy-label") || button.textContent;
    } else if (button.hasAttribute("data-label")) {
      button.textContent = button.getAttribute("data-label");
    }
    button.disabled = busy;
    button.setAttribute("aria-busy", busy ? "true" : "false");
  }

  function continueCart(form) {
    var fallback = form.getAttribute("data-error") || "";
    var locale = form.querySelector("input[name=locale]");
    var box = form.querySelector(".continue-cart__message");
    if (box) box.hidden = true;
    setBusy(form, true);
    fetch(form.getAttribute("data-cart-url") || "/cart.js", { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (res) {
        if (!res.ok) throw new Error("cart");
        return res.json();
      })
      .then(function (cart) {
        return fetch(form.getAttribute("action"), {
          method: "POST",
          credentials: "same-origin",
          headers: { "Content-Type": "application/json", Accept: "application/json" },
          body: JSON.stringify({
            token: cart.token,
            locale: locale ? locale.value : "",
            lines: (cart.items || []).map(function (item) {
              return { variant_id: String(item.variant_id), quantity: item.quantity };
            }),
          }),
        });
      })
      .then(function (res) {
        return res.json().catch(function () {
          return null;
        });
      })
      .then(function (answer) {
        if (answer && answer.ok && claimAllowed(answer.claim_url, answer.service_origin)) {
          window.location.assign(answer.claim_url);
          return;
        }
        setBusy(form, false);
        // An "ok" answer whose claim URL is not the service's: the block's own words, not the answer's.
        showMessage(form, answer && !answer.ok && typeof answer.message === "string" ? answer.message : fallback);
      })
      .catch(function () {
        setBusy(form, false);
        showMessage(form, fallback);
      });
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !ownForm(form)) return;
    event.preventDefault();
    if (form.querySelector("button[aria-busy=true]")) return;
    continueCart(form);
  });

  // The app embed: one copy of its <template> form in each cart drawer, shown only while the cart has lines.
  // Themes re-render their drawer after every cart change (Dawn and Shopify's current themes replace its inner
  // HTML through the Section Rendering API), which drops the copy: an observer on the drawer containers only
  // (never the whole page) puts it back, at most once per animation frame, and /cart.js says whether it shows.
  var embed = document.querySelector("template[data-continue-cart-embed]");
  if (!embed) return;
  var targetSelector = embed.getAttribute("data-targets") || "";
  var containerSelector = embed.getAttribute("data-containers") || "";
  var hasLines = Number(embed.getAttribute("data-item-count")) > 0;
  var frame = 0;
  var counting = false;
  var countAgain = false;
  var observed = [];
  // Changes inside our own copy (its busy label, its message) and our own insertions are not the theme's.
  var observer = new MutationObserver(function (records) {
    for (var i = 0; i < records.length; i++) {
      if (ours(records[i].target)) continue;
      if (foreign(records[i].addedNodes) || foreign(records[i].removedNodes)) return schedule(true);
    }
  });

  function all(selector, root) {
    try {
      return selector ? Array.prototype.slice.call((root || document).querySelectorAll(selector)) : [];
    } catch (e) {
      return []; // a mistyped selector in the theme editor must not break the page
    }
  }
  function ours(node) {
    var element = node.nodeType === 1 ? node : node.parentElement;
    return !!(element && element.closest("[data-continue-cart-copy]"));
  }
  function foreign(nodes) {
    for (var i = 0; i < nodes.length; i++) if (!ours(nodes[i])) return true;
    return false;
  }
  // Only the outermost of nested matches: a theme's footer inside its footer gets one button, not two.
  function outermost(elements) {
    return elements.filter(function (el) {
      for (var p = el.parentElement; p; p = p.parentElement) if (elements.indexOf(p) >= 0) return false;
      return true;
    });
  }

  function place() {
    frame = 0;
    var targets = outermost(all(targetSelector));
    for (var i = 0; i < targets.length; i++) {
      var copies = all("[data-continue-cart-copy]", targets[i]);
      for (var j = 1; j < copies.length; j++) copies[j].remove();
      if (copies.length > 0) continue;
      var copy = embed.content.firstElementChild && embed.content.firstElementChild.cloneNode(true);
      if (!copy) return;
      copy.setAttribute("data-continue-cart-copy", "");
      placed.add(copy);
      copy.hidden = !hasLines;
      targets[i].appendChild(copy);
    }
    observe(targets);
  }
  function show() {
    var copies = all("[data-continue-cart-copy]");
    for (var i = 0; i < copies.length; i++) copies[i].hidden = !hasLines;
  }
  // The drawer's cart as it is now (lines added or removed since the page loaded), one request at a time.
  function count() {
    if (counting) return void (countAgain = true);
    counting = true;
    fetch(embed.content.firstElementChild.getAttribute("data-cart-url") || "/cart.js", { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (res) {
        return res.ok ? res.json() : null;
      })
      .then(function (cart) {
        if (cart && typeof cart.item_count === "number") hasLines = cart.item_count > 0;
        show();
      })
      .catch(function () {})
      .then(function () {
        counting = false;
        if (countAgain) {
          countAgain = false;
          count();
        }
      });
  }
  function schedule(recount) {
    if (recount) count();
    if (!frame) frame = window.requestAnimationFrame(place);
  }
  // The containers that outlive a re-render: the outermost drawer element around each target (or the target's
  // parent when the theme has none of the known ones).
  function observe(targets) {
    var containers = outermost(all(containerSelector));
    for (var i = 0; i < targets.length; i++) {
      var inside = containers.some(function (c) {
        return c.contains(targets[i]);
      });
      if (!inside && targets[i].parentElement) containers.push(targets[i].parentElement);
    }
    for (var j = 0; j < containers.length; j++) {
      if (observed.indexOf(containers[j]) >= 0) continue;
      observed.push(containers[j]);
      observer.observe(containers[j], { childList: true, subtree: true });
    }
  }

  // Themes that announce cart changes (Shopify's current themes, many others) are followed without waiting for
  // their drawer to re-render.
  ["cart:update", "cart:updated", "cart:refresh"].forEach(function (name) {
    document.addEventListener(name, function () {
      schedule(true);
    });
  });
  place();
})();
