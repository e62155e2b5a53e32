// The app's client for the Merchant Integration Service. Plain TypeScript, no Remix: routes and the worker call
// these functions with the merchant's settings (and, for imports, the customer's grant store).
export {
  createServiceContext,
  ServiceSettingsSchema,
  serviceBaseUrl,
  type ServiceContext,
  type ServiceDeps,
  type ServiceDepsOverrides,
  type ServiceEnvironment,
  type ServiceLogger,
  type ServiceSettings,
} from "./context.server";
export { failure, type Failure, type FailureKind, type Outcome, type Success } from "./outcomes.server";
export { backoffDelayMs, DEFAULT_RETRY_POLICY, parseRetryAfter, type RetryPolicy } from "./retry.server";
export { signatureHeader, signedHeaders, signedString, sha256Hex, type SignatureInput } from "./signature.server";
export {
  checkConnection,
  createCartHandoff,
  type CheckFinding,
  type ConnectionCheck,
  type HandoffOptions,
  type HandoffOutcome,
} from "./handoffs.server";
export {
  importOrder,
  importShipment,
  INVALID_GRANT_REASON,
  NO_REFRESH_REASON,
  type ImportOptions,
  type ImportOutcome,
} from "./imports.server";
export {
  completeAuthorization,
  refreshTokens,
  revokeToken,
  SERVICE_SCOPES,
  startAuthorization,
  type AuthorizationStart,
  type OAuthFailure,
  type OAuthFailureKind,
  type OAuthResult,
  type TokenSet,
} from "./oauth.server";
export {
  checkServiceUrl,
  guardedFetch,
  policyFromEnv,
  serviceUrlProblem,
  urlProblemText,
  type AddressPolicy,
  type UrlProblem,
} from "./address-policy.server";
export { ORIGIN_CHANGED_REASON, serviceOrigins, tokensMayGoTo } from "./origins.server";
export {
  UNREADABLE_REASON,
  type GrantStatus,
  type GrantStore,
  type GrantTokens,
  type StoredGrant,
} from "./grant-store.server";
export type * from "./schemas";
export { CONTRACT_POLICY, FIRST_WAVE, parsePolicy, parseRateLimit, type Policy } from "./rate-headers";
export { RateScheduler, type RateSchedulerOptions } from "./rate-limiter.server";
export {
  clientKeyOf,
  handoffGate,
  interactiveSlot,
  scheduledFetch,
  serviceScheduler,
  type InteractiveSlot,
} from "./rate-limited-fetch.server";
export type { Lease, LeaseRequest, SharedPolicy, SharedRateStore } from "./shared-rate-store";
