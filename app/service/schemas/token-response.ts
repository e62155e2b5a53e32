// The OAuth token endpoint's 200 body (contract 4). `expires_in` may be absent on other services.
import { z } from "zod";

export const TokenResponseSchema = z.object({
  access_token: z.string(),
  token_type: z.string(),
  expires_in: z.number().optional(),
  refresh_token: z.string().optional(),
  scope: z.string().optional(),
  workspace_id: z.string().optional(),
});

export type TokenResponse = z.infer<typeof TokenResponseSchema>;
