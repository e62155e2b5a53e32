// Request bodies from browsers and scripts alike: a missing or non-form body reads as an empty form, so a route
// answers "what is missing" in its own shape instead of failing with a 500.
export async function readForm(request: Request): Promise<FormData> {
  try {
    return await request.formData();
  } catch {
    return new FormData();
  }
}
