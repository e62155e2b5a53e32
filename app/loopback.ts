// The one definition of a loopback host, for the few places plain http is allowed because nothing leaves the
// machine (the local demo, the tests, a production build run on 127.0.0.1). The storefront script keeps the same
// rule in plain JavaScript (extensions/storefront/assets/continue-cart.js).

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|::1)$/;

/** Whether a URL's hostname ("localhost", "127.0.0.1", "[::1]"; also the bare "::1") names this machine. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOST.test(hostname);
}
