// CSV export of the sync log view described by the query (same filters as the page), streamed page by page.
import type { LoaderFunctionArgs } from "@remix-run/node";
import prisma from "../db.server";
import { authenticate } from "../shopify.server";
import { parseLogFilter } from "../admin/log-query.server";
import { exportLogCsv } from "../admin/log-export.server";
import { requestLocale } from "../i18n/request.server";
import { translator } from "../i18n/translate";

export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { session } = await authenticate.admin(request);
  const filter = parseLogFilter(new URL(request.url).searchParams);
  return new Response(
    exportLogCsv(prisma, session.shop, filter, undefined, translator(requestLocale(request, session))),
    {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="sync-log-${new Date().toISOString().slice(0, 10)}.csv"`,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      },
    },
  );
};
