// CartHandoffResponse (docs/service.md, "Endpoints"); all fields required.
import { z } from "zod";
import { dateTime, uri } from "./formats";

export const CartHandoffResponseSchema = z.object({
  handoff_id: z.guid(), // any UUID-shaped id: lenient in what the client accepts
  claim_url: uri(),
  expires_at: dateTime(),
});

export type CartHandoffResponse = z.infer<typeof CartHandoffResponseSchema>;
