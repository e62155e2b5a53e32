// In-process wake-up: the webhook handler pokes the in-process worker so a new job starts at once instead of at
// the next poll. Workers in other processes simply poll.
type Listener = () => void;
const listeners = new Set<Listener>();

export function notifyWorkers(): void {
  for (const listener of listeners) listener();
}

export function onWorkNotified(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
