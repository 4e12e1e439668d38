import NextAuth from "next-auth";
import type { NextRequest } from "next/server";

import { getAuthOptions } from "@/lib/auth/auth-options";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ nextauth: string[] }> };

// next-auth's App Router handler, built per request because the session secret may come from the database.
const handler = async (request: NextRequest, context: Context): Promise<Response> =>
  NextAuth(request, context, await getAuthOptions()) as Promise<Response>;

export { handler as GET, handler as POST };
