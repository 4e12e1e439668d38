// Imported first by production.test.ts, so it runs before anything reads (and caches) the environment: this test
// process is a production deployment whose operator did not allow private outbound targets.
Object.assign(process.env, { NODE_ENV: "production" }); // NODE_ENV is typed read-only
delete process.env.OUTBOUND_ALLOW_PRIVATE;
