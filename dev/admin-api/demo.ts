// Every Admin API handler the demo serves, over the demo store's data (dev/demo-store); tests pick the ones they need.
import { orderHandlers } from "./orders";

export function demoAdminApiHandlers() {
  return [...orderHandlers()];
}
