// ErrorResponse (spec 2.9): clients rely on `error` only; `message` is optional human detail.
import { z } from "zod";

export const ErrorResponseSchema = z.object({
  error: z.string(),
  message: z.string().optional(),
});

export type ErrorResponse = z.infer<typeof ErrorResponseSchema>;
