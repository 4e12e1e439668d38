// The buyer's theme choice, kept in a cookie so the server renders it on <html> before the first paint (no flash,
// no inline script). No cookie: follow the operating system (prefers-color-scheme in app/globals.css).

export const THEME_COOKIE = "acs-theme";
export type ThemeChoice = "system" | "light" | "dark";

export const parseTheme = (value: string | undefined): ThemeChoice =>
  value === "light" || value === "dark" ? value : "system";
