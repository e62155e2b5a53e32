// ResourceResponse (docs/service.md, "Endpoints"). `status` is a free string: clients must not assume its values.
import { z } from "zod";

export const ResourceResponseSchema = z.object({
  id: z.string(),
  status: z.string(),
  external_id: z.string(),
});

export type ResourceResponse = z.infer<typeof ResourceResponseSchema>;
