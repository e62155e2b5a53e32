// Request bodies from browsers and scripts alike: a missing or non-form body reads as an empty form, so a route
// answers "what is missing" in its own shape instead of failing with a 500. A body over the form limit (or one the
// client abandoned) is answered 413 (or 400) by throwing the response; see body-limit.server.ts.
import { readBody, withBody } from "./body-limit.server";

export async function readForm(request: Request): Promise<FormData> {
  const body = await readBody(request, "form");
  if (!body.ok) throw body.response;
  try {
    return await withBody(request, body.bytes).formData();
  } catch {
    return new FormData();
  }
}
