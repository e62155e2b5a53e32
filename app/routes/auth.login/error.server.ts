import { LoginErrorType, type LoginError } from "@shopify/shopify-app-remix/server";

/** The login form's error as a message key (worded in the page's language). */
export function loginErrorMessage(loginErrors: LoginError | undefined): {
  shop?: "login.error.missingShop" | "login.error.invalidShop";
} {
  if (loginErrors?.shop === LoginErrorType.MissingShop) return { shop: "login.error.missingShop" };
  if (loginErrors?.shop === LoginErrorType.InvalidShop) return { shop: "login.error.invalidShop" };
  return {};
}
