/**
 * The data embedded in the page: read once from their JSON script elements, which are then
 * removed (their text can be hundreds of megabytes). The first screen's data is read as this
 * module loads; the entries are read at boot, once the whole page has been parsed.
 */
import { FIRST_SCREEN_ID, type PageFirstScreen } from "../src/page-data.js";

/** The parsed JSON of the script element `id`; the element is removed. */
export function readJson<T>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`no ${id} element in this page`);
  const value = JSON.parse(el.textContent ?? "null") as T;
  // The text node can be hundreds of megabytes; the parsed value is all the page needs.
  el.remove();
  return value;
}

performance.mark("pi-session:start");
/** What the first screen shows before the entries are read, and the page's settings. */
export const first = readJson<PageFirstScreen>(FIRST_SCREEN_ID);
export const settings = first.settings;
