import { TokenEndpointError, tokenRequest, toStoredLogin } from "./login";
import { readLogin, withLoginLock, writeLogin, type StoredLogin } from "./login-store";

// A stored login in use by a stdio bridge: the bearer it sends on buyer-bound calls, refreshed silently (RFC 6749
// §6, refresh_token grant) shortly before the access token expires. Refresh tokens rotate on every use and a reused
// one revokes the whole family, so the refresh runs under the file's lock and first re-reads the file: another
// bridge sharing the login may have refreshed already, and its tokens are then taken instead. A refresh the
// service refuses (the buyer revoked the bridge, the refresh token lapsed) leaves the bridge without a bearer:
// buyer-bound tools then say one is needed, and stderr says to run `bridge login` again.

/** Refresh this long before the access token's expiry (clock skew, a slow call). */
export const REFRESH_MARGIN_MS = 60_000;

export type LoginSession = {
  /** `Bearer <access token>`, or undefined once the login is gone. */
  authorization: () => string | undefined;
  /** Refreshes when the access token is (nearly) expired; never throws (a refusal is logged and drops the login). */
  ensureFresh: () => Promise<void>;
};

export const loginSession = ({
  file,
  login: initial,
  now = () => Date.now(),
  log = (line: string) => process.stderr.write(`${line}\n`),
}: {
  file: string;
  login: StoredLogin;
  now?: () => number;
  log?: (line: string) => void;
}): LoginSession => {
  let login: StoredLogin | null = initial;
  let refreshing: Promise<void> | null = null;
  const isFresh = (l: StoredLogin) => Date.parse(l.expires_at) - REFRESH_MARGIN_MS > now();

  const refresh = async (current: StoredLogin): Promise<void> => {
    await withLoginLock(file, async () => {
      const onDisk = await readLogin(file, current.base_url);
      if (onDisk && isFresh(onDisk)) {
        login = onDisk;
        return;
      }
      const from = onDisk ?? current;
      if (!from.refresh_token) {
        login = null;
        log(`bridge: the login for ${from.base_url} has expired; run \`bridge login\` again`);
        return;
      }
      try {
        const tokens = await tokenRequest(from.token_endpoint, {
          grant_type: "refresh_token",
          refresh_token: from.refresh_token,
          client_id: from.client_id,
        });
        const next = toStoredLogin(
          // a server that does not rotate keeps the old refresh token valid (RFC 6749 §6)
          { ...tokens, refresh_token: tokens.refresh_token ?? from.refresh_token },
          from,
          new Date(now()),
        );
        await writeLogin(file, next);
        login = next;
      } catch (error) {
        const refused = error instanceof TokenEndpointError && error.oauthError !== undefined;
        // refused (revoked, lapsed): the login is over; unreachable: keep it, the next call tries again
        if (refused) login = null;
        log(
          `bridge: could not refresh the login for ${from.base_url}: ${(error as Error).message}${refused ? "; run `bridge login` again" : ""}`,
        );
      }
    });
  };

  return {
    authorization: () => (login ? `Bearer ${login.access_token}` : undefined),
    ensureFresh: async () => {
      const current = login;
      if (!current || isFresh(current)) return;
      refreshing ??= refresh(current).finally(() => {
        refreshing = null;
      });
      await refreshing;
    },
  };
};
