// Minimal structured logging: one JSON line per event on stderr. Unexpected errors carry the Request-Id so an
// operator can find them from a client's report; their details never reach the client.

export const logError = (error: Error, requestId: string | null): void => {
  const cause = error.cause instanceof Error ? error.cause : error;
  console.error(
    JSON.stringify({
      level: "error",
      time: new Date().toISOString(),
      request_id: requestId,
      code: (error as { code?: string }).code,
      message: cause.message,
      stack: cause.stack,
    }),
  );
};
