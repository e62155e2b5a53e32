// The theme's cart drawer over Shopify's Ajax Cart API: add to cart without leaving the page, then show the cart.
(function () {
  const drawer = document.getElementById("cart-drawer");
  const money = (cents) => new Intl.NumberFormat("en-IE", { style: "currency", currency: "EUR" }).format(cents / 100);
  async function refresh() {
    const cart = await (await fetch("/cart.js", { headers: { Accept: "application/json" } })).json();
    document.querySelectorAll("[data-cart-count]").forEach((el) => (el.textContent = String(cart.item_count)));
    const list = drawer.querySelector("[data-cart-items]");
    list.replaceChildren(
      ...cart.items.map((item) => {
        const li = document.createElement("li");
        const name = document.createElement("span");
        name.textContent = `${item.quantity} × ${item.title}`;
        const price = document.createElement("span");
        price.textContent = money(item.final_line_price);
        li.append(name, price);
        return li;
      }),
    );
    drawer.querySelector("[data-cart-total]").textContent = money(cart.total_price);
    document.dispatchEvent(new CustomEvent("cart:updated", { detail: cart }));
    return cart;
  }
  const open = () => { drawer.hidden = false; };
  document.querySelectorAll("[data-cart-close]").forEach((b) => b.addEventListener("click", () => (drawer.hidden = true)));
  document.querySelectorAll("[data-cart-toggle]").forEach((a) =>
    a.addEventListener("click", (event) => { event.preventDefault(); refresh().then(open); }),
  );
  document.querySelectorAll("[data-product-form]").forEach((form) =>
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const body = Object.fromEntries(new FormData(form));
      const response = await fetch("/cart/add.js", { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify(body) });
      if (!response.ok) return alert((await response.json()).description || "Could not add to cart");
      await refresh();
      open();
    }),
  );
})();
