// What the shopper reads, in their language (en, fr, de; English otherwise). Codes are stable: the storefront
// script and the records use them. Names of unavailable items are inserted by the caller, escaped where rendered.

export type ShopperCode =
  | "empty_cart"
  | "too_many_lines"
  | "invalid_request"
  | "unavailable"
  | "settings_missing"
  | "disabled"
  | "service_unavailable"
  | "rate_limited"
  | "signature_rejected"
  | "busy"
  | "failed";

type Catalog = Record<ShopperCode, string>;

const en: Catalog = {
  empty_cart: "Your cart is empty. Add something before continuing.",
  too_many_lines: "Your cart has too many lines to continue (at most 200).",
  invalid_request: "Your cart could not be read. Reload the page and try again.",
  unavailable: "These items are no longer available: {items}. Remove them from your cart and try again.",
  settings_missing: "Continuing your cart is not available in this store yet.",
  disabled: "Continuing your cart is turned off in this store.",
  service_unavailable: "The service is not answering right now. Your cart is unchanged; try again in a few minutes.",
  rate_limited: "The service is busy. Your cart is unchanged; try again in a minute.",
  signature_rejected: "This store could not be verified by the service. Your cart is unchanged; please tell the store.",
  busy: "Too many attempts. Wait a moment and try again.",
  failed: "Your cart could not be continued. It is unchanged; try again later.",
};

const fr: Catalog = {
  empty_cart: "Votre panier est vide. Ajoutez un article avant de continuer.",
  too_many_lines: "Votre panier contient trop de lignes pour continuer (200 au maximum).",
  invalid_request: "Votre panier n'a pas pu être lu. Rechargez la page et réessayez.",
  unavailable: "Ces articles ne sont plus disponibles : {items}. Retirez-les de votre panier et réessayez.",
  settings_missing: "La poursuite du panier n'est pas encore disponible dans cette boutique.",
  disabled: "La poursuite du panier est désactivée dans cette boutique.",
  service_unavailable:
    "Le service ne répond pas pour le moment. Votre panier est inchangé ; réessayez dans quelques minutes.",
  rate_limited: "Le service est occupé. Votre panier est inchangé ; réessayez dans une minute.",
  signature_rejected:
    "Le service n'a pas pu vérifier cette boutique. Votre panier est inchangé ; prévenez la boutique.",
  busy: "Trop de tentatives. Patientez un instant et réessayez.",
  failed: "Votre panier n'a pas pu être poursuivi. Il est inchangé ; réessayez plus tard.",
};

const de: Catalog = {
  empty_cart: "Ihr Warenkorb ist leer. Legen Sie etwas hinein, bevor Sie fortfahren.",
  too_many_lines: "Ihr Warenkorb hat zu viele Positionen zum Fortfahren (höchstens 200).",
  invalid_request: "Ihr Warenkorb konnte nicht gelesen werden. Laden Sie die Seite neu und versuchen Sie es erneut.",
  unavailable:
    "Diese Artikel sind nicht mehr verfügbar: {items}. Entfernen Sie sie aus dem Warenkorb und versuchen Sie es erneut.",
  settings_missing: "Das Fortsetzen des Warenkorbs ist in diesem Shop noch nicht verfügbar.",
  disabled: "Das Fortsetzen des Warenkorbs ist in diesem Shop ausgeschaltet.",
  service_unavailable:
    "Der Dienst antwortet gerade nicht. Ihr Warenkorb bleibt unverändert; versuchen Sie es in ein paar Minuten erneut.",
  rate_limited:
    "Der Dienst ist ausgelastet. Ihr Warenkorb bleibt unverändert; versuchen Sie es in einer Minute erneut.",
  signature_rejected:
    "Der Dienst konnte diesen Shop nicht bestätigen. Ihr Warenkorb bleibt unverändert; bitte informieren Sie den Shop.",
  busy: "Zu viele Versuche. Warten Sie einen Moment und versuchen Sie es erneut.",
  failed: "Ihr Warenkorb konnte nicht fortgesetzt werden. Er bleibt unverändert; versuchen Sie es später erneut.",
};

const CATALOGS: Record<string, Catalog> = { en, fr, de };

export function shopperMessage(code: ShopperCode, locale: string, items: string[] = []): string {
  const catalog = CATALOGS[locale.slice(0, 2).toLowerCase()] ?? en;
  return catalog[code].replace("{items}", items.join(", "));
}

const BACK_TO_CART: Record<string, string> = {
  en: "Back to your cart",
  fr: "Retour au panier",
  de: "Zurück zum Warenkorb",
};

export function backToCartLabel(locale: string): string {
  return BACK_TO_CART[locale.slice(0, 2).toLowerCase()] ?? BACK_TO_CART.en;
}
