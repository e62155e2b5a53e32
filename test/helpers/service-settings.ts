// A complete service settings form (public https names; nothing is called): what a merchant saves on the settings page.
export const SERVICE_SETTINGS_FORM = {
  environment: "sandbox",
  baseUrl: "https://service.example",
  sandboxBaseUrl: "https://sandbox.example",
  authUrl: "https://auth.example",
  clientId: "client-1",
  clientSecret: "client-secret-1",
  signingSecret: "signing-secret-1",
};
