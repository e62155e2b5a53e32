// The theme's cart drawer, behaving like Dawn's: add to cart and remove lines over Shopify's Ajax Cart API, asking
// in the same request for the drawer and the cart count re-rendered (the Section Rendering API's `sections`
// parameter), then replacing the drawer's inner HTML with the fresh copy. Whatever an app had put inside the drawer
// is gone after each re-render, as on a real Dawn store.
(function () {
  const SECTIONS = ["cart-drawer", "cart-icon-bubble"];
  const drawer = () => document.querySelector("cart-drawer");
  const parse = (html) => new DOMParser().parseFromString(html, "text/html");

  /** The part of a rendered section that `selector` picks, as HTML. */
  function sectionPart(html, selector) {
    const found = parse(html).querySelector(selector);
    return found ? found.innerHTML : null;
  }

  function renderSections(sections, drawerSelector) {
    const inner = sections && sections["cart-drawer"] && sectionPart(sections["cart-drawer"], drawerSelector);
    const target = document.querySelector(drawerSelector);
    if (inner !== null && inner !== undefined && target) target.innerHTML = inner;
    const bubble =
      sections && sections["cart-icon-bubble"] && sectionPart(sections["cart-icon-bubble"], ".shopify-section");
    const icon = document.getElementById("cart-icon-bubble");
    if (bubble !== null && bubble !== undefined && icon) icon.innerHTML = bubble;
    const fresh = sections && sections["cart-drawer"] && parse(sections["cart-drawer"]).querySelector("cart-drawer");
    if (fresh) drawer().classList.toggle("is-empty", fresh.classList.contains("is-empty"));
  }

  async function post(url, body) {
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ ...body, sections: SECTIONS, sections_url: window.location.pathname }),
    });
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.description || "Could not change the cart");
    return answer;
  }

  const open = () => drawer().classList.add("active");
  const close = () => drawer().classList.remove("active");

  // Delegated: the drawer's buttons are new elements after every re-render.
  document.addEventListener("click", async (event) => {
    const target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    if (target.closest("[data-cart-close]")) return close();
    if (target.closest("[data-cart-toggle]")) {
      event.preventDefault();
      return open();
    }
    const remove = target.closest("[data-cart-remove]");
    if (remove) {
      try {
        // Like Dawn's cart-drawer-items: only the drawer's inner part is swapped after a change.
        renderSections(
          (await post("/cart/change.js", { line: Number(remove.getAttribute("data-cart-remove")), quantity: 0 }))
            .sections,
          "#CartDrawer .drawer__inner",
        );
      } catch (error) {
        alert(error.message);
      }
    }
  });

  document.querySelectorAll("[data-product-form]").forEach((form) =>
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const fields = Object.fromEntries(new FormData(form));
      try {
        // Like Dawn's product form: the whole #CartDrawer is replaced, then the drawer opens.
        renderSections(
          (await post("/cart/add.js", { id: fields.id, quantity: fields.quantity })).sections,
          "#CartDrawer",
        );
        open();
      } catch (error) {
        alert(error.message);
      }
    }),
  );
})();
