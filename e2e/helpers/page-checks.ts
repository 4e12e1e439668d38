import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, type TestInfo } from "@playwright/test";

// What every page test checks: a full-page screenshot attached to the report (and written to E2E_SHOTS_DIR when
// set, to look at), and an axe-core scan with no serious or critical violation.
// Under CI (CI=true) without E2E_SHOTS_DIR nobody can open the report (the machine is gone after the run), so no
// screenshot is taken there: about two hundred full-page captures were a real share of the browser step.

/** Full-page screenshot into the report (and into E2E_SHOTS_DIR, or its tour/ folder, when set). */
export const shoot = async (page: Page, testInfo: TestInfo, name: string, folder = "") => {
  const dir = process.env.E2E_SHOTS_DIR;
  if (!dir && process.env.CI) return;
  const png = await page.screenshot({ fullPage: true });
  await testInfo.attach(name, { body: png, contentType: "image/png" });
  if (dir) {
    mkdirSync(path.join(dir, folder), { recursive: true });
    writeFileSync(path.join(dir, folder, `${name}.png`), png);
  }
};

/** axe-core on the page as rendered: no serious or critical violation (WCAG 2.x A/AA rules and best practices). */
export const expectAccessible = async (page: Page, label: string) => {
  // Next streams a page's metadata: right after a load the <title> may not be there yet. Every page of ours has
  // one, so axe waits for it (a page without a title still fails: the wait ends and axe reports it).
  await page
    .waitForFunction(() => document.title.trim() !== "", undefined, { timeout: 5000 })
    .catch(() => undefined);
  // colours still in a transition (a theme just switched, a button's hover fading out) are measured where they
  // end, not half-way: axe read a half-faded control as low contrast. Endless animations (a spinner) are not
  // waited for, and nothing is waited for past 2 s.
  await page.evaluate(() =>
    Promise.race([
      Promise.all(
        document
          .getAnimations()
          .filter((a) => Number.isFinite(Number(a.effect?.getComputedTiming().endTime)))
          .map((a) => a.finished.catch(() => undefined)),
      ),
      new Promise((resolve) => setTimeout(resolve, 2000)),
    ]),
  );
  const { violations } = await new AxeBuilder({ page }).analyze();
  const bad = violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect.soft(bad, `${label}: ${bad.join("\n")}`).toEqual([]);
};

/**
 * Neither the page nor any of its tables scrolls sideways at `width` (a table on a phone hides its secondary columns
 * instead); a failure names the innermost elements past the right edge, which is what to fix.
 */
export const expectNoSidewaysScroll = async (page: Page, width: number, label: string) => {
  const { scrollWidth, wider, tables } = await page.evaluate((w) => {
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
    `${label}: no sideways scrolling (past the edge: ${wider.join(", ")})`,
  ).toBeLessThanOrEqual(width);
  expect(tables, `${label}: tables that scroll sideways`).toEqual([]);
};
