import { expect, type Page, type TestInfo } from "@playwright/test";

import { expectAccessible, expectNoSidewaysScroll, shoot } from "./page-checks";

// One state of a buyer's pay page in every look the brief asks for: light and dark (the theme cookie, then a reload:
// the server renders the theme), each at 1280 and 390 px, with no sideways scrolling and a screenshot; axe runs in
// the light theme at 1280 px and the dark one at 390 px.
// The page must show the same state after a reload (the pay pages keep their state on the server).

const THEMES = ["light", "dark"] as const;
const WIDTHS = [1280, 390] as const;

export const everyLook = async (page: Page, testInfo: TestInfo, name: string) => {
  for (const theme of THEMES) {
    await page.context().addCookies([{ name: "acs-theme", value: theme, url: new URL(page.url()).origin }]);
    await page.reload();
    await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await expectNoSidewaysScroll(page, width, `${name} ${theme} ${width}`);
      await shoot(page, testInfo, `${name}-${theme}-${width}`);
      // axe in both themes and at both widths, not in all four looks (it is the slow part on a small machine)
      if ((theme === "light") === (width === 1280)) await expectAccessible(page, `${name} ${theme} ${width}`);
    }
  }
  await page.context().addCookies([{ name: "acs-theme", value: "light", url: new URL(page.url()).origin }]);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.reload();
};

/**
 * A state that lives only in the browser (an error the page shows after the wallet answered) in every look, without
 * a reload: the theme is switched on <html> as the server would render it, then put back.
 */
export const everyLookInPlace = async (page: Page, testInfo: TestInfo, name: string, folder = "") => {
  const before = await page.evaluate(() => document.documentElement.getAttribute("data-theme"));
  for (const theme of THEMES) {
    await page.evaluate((t) => document.documentElement.setAttribute("data-theme", t), theme);
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await expectNoSidewaysScroll(page, width, `${name} ${theme} ${width}`);
      await shoot(page, testInfo, `${name}-${theme}-${width}`, folder);
      if ((theme === "light") === (width === 1280)) await expectAccessible(page, `${name} ${theme} ${width}`);
    }
  }
  await page.evaluate(
    (t) =>
      t === null
        ? document.documentElement.removeAttribute("data-theme")
        : document.documentElement.setAttribute("data-theme", t),
    before,
  );
  await page.setViewportSize({ width: 1280, height: 900 });
};
