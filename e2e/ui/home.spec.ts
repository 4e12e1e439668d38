import { expect, test } from "@playwright/test";

// The landing page: the service name, the surfaces, and the seeded demo stores, each linking to its UCP
// business profile (DECISIONS.md B.2: `/s/<slug>/.well-known/ucp`; B.1: we serve 2026-04-08).

const UCP_VERSION = "2026-04-08";
const PROFILE_LINK = 'a[href*="/s/"][href$="/.well-known/ucp"]';

type Profile = { ucp?: { version?: unknown } };

test("GET / — names the service and links every demo store to a UCP 2026-04-08 profile", async ({ page }) => {
  await page.goto("/");

  await expect(page.getByRole("heading", { level: 1, name: /Agent Commerce Service/ })).toBeVisible();

  const links = page.locator(PROFILE_LINK);
  // The seed creates at least three demo stores.
  await expect.poll(() => links.count()).toBeGreaterThanOrEqual(3);
  const hrefs = [...new Set(await links.evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href)))];
  expect(hrefs.length).toBeGreaterThanOrEqual(3);

  // Follow the first link the way a person would: the navigation itself must answer with the JSON profile.
  const first = links.first();
  const firstHref = await first.evaluate((a) => (a as HTMLAnchorElement).href);
  const [navigation] = await Promise.all([
    page.waitForResponse((response) => response.url() === firstHref),
    first.click(),
  ]);
  expect(navigation.status()).toBe(200);
  expect(navigation.headers()["content-type"]).toContain("application/json");
  expect(((await navigation.json()) as Profile).ucp?.version).toBe(UCP_VERSION);

  // Every other store's profile answers too.
  for (const href of hrefs) {
    const response = await page.request.get(href);
    expect(response.status(), href).toBe(200);
    expect(((await response.json()) as Profile).ucp?.version, href).toBe(UCP_VERSION);
  }
});
