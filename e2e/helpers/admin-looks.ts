import type { Page, TestInfo } from "@playwright/test";

import { everyLookInPlace } from "./pay-page-looks";

// One state of a merchant admin page in every look: light and dark (set on <html> as the theme menu does, with no
// reload, so a form's refusal or a key shown once stays on screen), each at 1280 and 390 px, the way a pay page's
// in-browser states are looked at: neither the page nor any of its tables scrolls sideways (a table on a phone
// hides its secondary columns instead), a screenshot goes into the admin/ folder, and axe runs in the light theme
// at 1280 px and the dark one at 390 px (axe is the slow part on a small machine).
export const adminLook = (page: Page, testInfo: TestInfo, name: string) =>
  everyLookInPlace(page, testInfo, name, "admin");
