import { expect, type Page, type TestInfo } from "@playwright/test";

import { expectAccessible, shoot } from "./page-checks";

// One state of a merchant admin page in every look: light and dark (set on <html> as the theme menu does, with no
// reload, so a form's refusal or a key shown once stays on screen), each at 1280 and 390 px. Neither the page nor any of its tables scrolls sideways (a table on
// a phone hides its secondary columns instead), a screenshot goes into the admin/ folder, and axe runs in the
// light theme at 1280 px and the dark one at 390 px (axe is the slow part on a small machine).

const THEMES = ["light", "dark"] as const;
const WIDTHS = [1280, 390] as const;

export const adminLook = async (page: Page, testInfo: TestInfo, name: string) => {
  const before = await page.locator("html").getAttribute("data-theme");
  for (const theme of THEMES) {
    await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      const { scrollWidth, wider, tables } = await page.evaluate((w) => {
        // the innermost elements past the right edge: what to fix when the page scrolls sideways
        const past = [...document.querySelectorAll("body *")].filter(
          (e) => e.getBoundingClientRect().right > w + 1,
        );
        return {
          scrollWidth: document.documentElement.scrollWidth,
          wider: past
            .filter((e) => !past.some((o) => o !== e && e.contains(o)))
            .slice(0, 5)
            .map((e) => `<${e.tagName.toLowerCase()}> "${(e.textContent ?? "").trim().slice(0, 40)}"`),
          // a table's box that scrolls sideways (components/ui/table.tsx), by its name
          tables: [...document.querySelectorAll("[role=region]")]
            .filter((r) => r.querySelector("table") && r.scrollWidth > r.clientWidth + 1)
            .map((r) => r.getAttribute("aria-label") ?? "(unnamed table)"),
        };
      }, width);
      expect(
        scrollWidth,
        `${name} ${theme} ${width}: no sideways scrolling (past the edge: ${wider.join(", ")})`,
      ).toBeLessThanOrEqual(width);
      expect(tables, `${name} ${theme} ${width}: tables that scroll sideways`).toEqual([]);
      await shoot(page, testInfo, `${name}-${theme}-${width}`, "admin");
      if ((theme === "light") === (width === 1280)) await expectAccessible(page, `${name} ${theme} ${width}`);
    }
  }
  await page.evaluate((t) => {
    if (t === null) delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = t;
  }, before);
  await page.setViewportSize({ width: 1280, height: 900 });
};
