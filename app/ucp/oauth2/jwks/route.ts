import { discoveryRoute } from "@/lib/http/discovery-route";
import { routeMethods } from "@/lib/http/prelude";
import { getJwks } from "@/lib/oauth/server-keys";

export const dynamic = "force-dynamic";

// The public key that verifies our access tokens (RFC 8414 jwks_uri).
export const { GET, POST, PUT, PATCH, DELETE } = routeMethods("oauth", {
  GET: discoveryRoute(() => getJwks()),
});
