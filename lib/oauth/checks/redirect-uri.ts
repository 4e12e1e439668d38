// Redirect URI matching (RFC 9700 §4.1.3: exact string match). One exception, from RFC 8252 §7.3 and UCP
// identity linking: for a registered loopback IP literal (http://127.0.0.1 or http://[::1]) the port is ignored,
// since native clients get an ephemeral port. `localhost` gets no such exception (RFC 8252 §8.3).

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]"]);

const withoutPort = (url: URL): string => `${url.protocol}//${url.hostname}${url.pathname}${url.search}`;

export const isRegisteredRedirectUri = (registered: readonly string[], requested: string): boolean => {
  if (registered.includes(requested)) return true;
  let asked: URL;
  try {
    asked = new URL(requested);
  } catch {
    return false;
  }
  if (asked.protocol !== "http:" || !LOOPBACK_HOSTS.has(asked.hostname) || asked.hash) return false;
  return registered.some((entry) => {
    try {
      const known = new URL(entry);
      return (
        known.protocol === "http:" &&
        LOOPBACK_HOSTS.has(known.hostname) &&
        withoutPort(known) === withoutPort(asked)
      );
    } catch {
      return false;
    }
  });
};
