// Every Admin API handler the demo serves (tests pick the ones they need).
import { orderHandlers } from "./orders";

export function adminApiHandlers() {
  return [...orderHandlers()];
}
