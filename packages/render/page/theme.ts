/**
 * The page's theme: the system's (auto), light or dark, chosen with the theme button and kept
 * in `localStorage` where the browser allows it.
 */
import { themeButton } from "./elements.js";

const THEMES = ["auto", "light", "dark"] as const;
type Theme = (typeof THEMES)[number];

function readTheme(): Theme {
  try {
    const saved = localStorage.getItem("pi-session-theme");
    if (saved === "light" || saved === "dark") return saved;
  } catch {
    // Storage can be unavailable (file:// in some browsers); the theme is then per visit.
  }
  return "auto";
}

const THEME_LABELS: Record<Theme, string> = { auto: "◐ Auto", light: "☀ Light", dark: "☾ Dark" };

function applyTheme(theme: Theme): void {
  if (theme === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  themeButton.textContent = THEME_LABELS[theme];
  themeButton.title =
    theme === "auto" ? "Theme: the system's (click for light)" : `Theme: ${theme} (click to change)`;
  themeButton.dataset.theme = theme;
  try {
    if (theme === "auto") localStorage.removeItem("pi-session-theme");
    else localStorage.setItem("pi-session-theme", theme);
  } catch {
    // See readTheme.
  }
}

/** Applies the saved theme (or the system's) and lets the theme button cycle through them. */
export function setUpTheme(): void {
  let theme = readTheme();
  applyTheme(theme);
  themeButton.addEventListener("click", () => {
    theme = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length] as Theme;
    applyTheme(theme);
  });
}
