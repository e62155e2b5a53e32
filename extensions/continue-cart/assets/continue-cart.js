// Continue cart: reads the cart afresh from /cart.js, posts its token, variant ids and quantities to the app proxy
// and sends the shopper to the claim URL it answers. On failure it shows the message (already in the shopper's
// language) and leaves the cart alone. No framework; messages go in as text, never as HTML.
(function () {
  "use strict";
  if (window.__continueCart) return;
  window.__continueCart = true;

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
        return fetch(form.action, {
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
        if (answer && answer.ok && /^https?:\/\//.test(answer.claim_url)) {
          window.location.assign(answer.claim_url);
          return;
        }
        setBusy(form, false);
        showMessage(form, answer && typeof answer.message === "string" ? answer.message : fallback);
      })
      .catch(function () {
        setBusy(form, false);
        showMessage(form, fallback);
      });
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-continue-cart")) return;
    event.preventDefault();
    if (form.querySelector("button[aria-busy=true]")) return;
    continueCart(form);
  });

  // The app embed: place a copy of its hidden form into cart drawers as they appear.
  function placeInDrawers() {
    var embeds = document.querySelectorAll("[data-continue-cart-targets]");
    for (var i = 0; i < embeds.length; i++) {
      var template = embeds[i].querySelector("[data-continue-cart-template]");
      var selector = embeds[i].getAttribute("data-continue-cart-targets");
      if (!template || !selector) continue;
      var targets;
      try {
        targets = document.querySelectorAll(selector);
      } catch (e) {
        continue; // a mistyped selector in the theme editor must not break the page
      }
      for (var j = 0; j < targets.length; j++) {
        if (targets[j].querySelector("[data-continue-cart]")) continue;
        var copy = template.cloneNode(true);
        copy.removeAttribute("hidden");
        copy.removeAttribute("data-continue-cart-template");
        targets[j].appendChild(copy);
      }
    }
  }
  if (document.querySelector("[data-continue-cart-targets]")) {
    placeInDrawers();
    new MutationObserver(placeInDrawers).observe(document.body, { childList: true, subtree: true });
  }
})();
