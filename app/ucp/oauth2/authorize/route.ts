import { authorizationEndpoint } from "@/lib/http/oauth-endpoints";

export const dynamic = "force-dynamic";

export const GET = authorizationEndpoint;
