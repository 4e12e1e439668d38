import { authorizationEndpoint } from "@/lib/http/oauth-endpoints";
import { routeMethods } from "@/lib/http/prelude";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = routeMethods("oauth", { GET: authorizationEndpoint });
