// Preloaded into a served instance a browser spec starts (NODE_OPTIONS=--import, see e2e/helpers/server-clock.ts):
// the server's clock, which a spec moves forward, so what the product lets happen only after minutes (a prepared
// payment's hold on the buyer's allowance running out) happens at once, with nothing written behind the product's
// back. Each SIGUSR2 moves every later Date.now() and `new Date()` forward by E2E_CLOCK_STEP_MS, then prints
// "server clock +<ms> ms" (the spec waits for it). Plain TypeScript Node runs as it is: it loads before tsx.

const step = Number(process.env.E2E_CLOCK_STEP_MS ?? "0");
let offset = 0;
const realNow = Date.now.bind(Date);
const RealDate = Date;

RealDate.now = () => realNow() + offset;
// a Proxy, not a subclass: `instanceof Date` and Date's statics stay what they were for every library
globalThis.Date = new Proxy(RealDate, {
  construct: (target, args: unknown[], newTarget) =>
    Reflect.construct(target, args.length === 0 ? [target.now()] : args, newTarget) as object,
  apply: (target) => new target(target.now()).toString(),
});

process.on("SIGUSR2", () => {
  offset += step;
  process.stdout.write(`server clock +${offset} ms\n`);
});
