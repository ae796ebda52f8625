/// <reference lib="dom" preserve="true" />
/**
 * A page's theme: the system's (auto), light or dark, set as `data-theme` on the root element,
 * chosen with a button that cycles through them and kept in `localStorage` where the browser
 * allows it. Use `setUpTheme` once per page with its theme button (the exported page and the
 * web app share the choice: the same key).
 */
import { h } from "./elements.js";

const THEMES = ["auto", "light", "dark"] as const;
type Theme = (typeof THEMES)[number];

const STORAGE_KEY = "pi-session-theme";
const THEME_ICONS: Record<Theme, string> = { auto: "◐", light: "☀", dark: "☾" };
const THEME_LABELS: Record<Theme, string> = { auto: "Auto", light: "Light", dark: "Dark" };

function readTheme(): Theme {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved === "light" || saved === "dark") return saved;
  } catch {
    // Storage can be unavailable (file:// in some browsers); the theme is then per visit.
  }
  return "auto";
}

function applyTheme(button: HTMLElement, theme: Theme): void {
  if (theme === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  // The label is its own span, so a narrow layout can show the icon alone.
  button.replaceChildren(
    THEME_ICONS[theme],
    h("span", { class: "theme-label", text: ` ${THEME_LABELS[theme]}` }),
  );
  button.title =
    theme === "auto" ? "Theme: the system's (click for light)" : `Theme: ${theme} (click to change)`;
  button.dataset.theme = theme;
  try {
    if (theme === "auto") localStorage.removeItem(STORAGE_KEY);
    else localStorage.setItem(STORAGE_KEY, theme);
  } catch {
    // See readTheme.
  }
}

/** Applies the saved theme (or the system's) and lets `button` cycle through them. */
export function setUpTheme(button: HTMLElement): void {
  let theme = readTheme();
  applyTheme(button, theme);
  button.addEventListener("click", () => {
    theme = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length] as Theme;
    applyTheme(button, theme);
  });
}
