/// <reference lib="dom" preserve="true" />
/**
 * Copy buttons: a button that puts text on the clipboard (the Clipboard API, else a selected
 * text area and `execCommand("copy")` where the API is missing) and says so for a moment. Use
 * {@link copyButton} for every "copy this" of a page.
 */
import { h } from "./elements.js";

/** How long the button says "Copied", in ms. */
const CONFIRM_MS = 1500;

function copyByCommand(text: string): boolean {
  const area = h("textarea", { attrs: { readonly: "", "aria-hidden": "true" } });
  area.value = text;
  area.className = "copy-buffer";
  document.body.append(area);
  area.select();
  let copied = false;
  try {
    copied = document.execCommand("copy");
  } catch {
    copied = false;
  }
  area.remove();
  return copied;
}

/** Puts `text` on the clipboard; resolves to whether it got there. */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Refused (no permission, not a secure context): the older way below.
  }
  return copyByCommand(text);
}

/** A button labelled `label` that copies what `text()` gives when clicked. */
export function copyButton(label: string, title: string, text: () => string): HTMLButtonElement {
  const button = h("button", { class: "copy", text: label, title, attrs: { type: "button" } });
  button.addEventListener("click", (event) => {
    event.preventDefault();
    event.stopPropagation();
    void copyText(text()).then((copied) => {
      button.textContent = copied ? "Copied" : "Copy failed";
      button.dataset.copied = String(copied);
      setTimeout(() => {
        button.textContent = label;
        delete button.dataset.copied;
      }, CONFIRM_MS);
    });
  });
  return button;
}
