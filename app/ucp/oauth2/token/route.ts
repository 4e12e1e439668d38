import { tokenEndpoint } from "@/lib/http/oauth-endpoints";

export const dynamic = "force-dynamic";

export const POST = tokenEndpoint;
