/**
 * A window over a long list of rendered items: items [start, end) are in the page, and it grows
 * a batch at a time at either end. Use it for a transcript too long to put in the page at once
 * (the exported page and the web app's session view); what to render and what to update after
 * a change are the page's own.
 */

export interface ItemWindowHooks {
  /** How many items there are in all, now. */
  count(): number;
  /** Puts items [from, to) into the page, before the rendered ones or after them. */
  render(from: number, to: number, where: "start" | "end"): void;
  /** Called after the window grew (for the "show more" buttons and the like). */
  changed(): void;
}

export class ItemWindow {
  /** The first item rendered. */
  start = 0;
  /** One past the last item rendered. */
  end = 0;

  constructor(
    /** The element the items are rendered into. */
    private readonly container: HTMLElement,
    /** The element that scrolls them. */
    private readonly scroller: HTMLElement,
    private readonly hooks: ItemWindowHooks,
    /** How many items one step adds. */
    readonly batch: number,
  ) {}

  /** Renders up to `count` more items after the last one shown. */
  later(count = this.batch): void {
    const total = this.hooks.count();
    if (this.end >= total) return;
    const to = Math.min(total, this.end + count);
    this.hooks.render(this.end, to, "end");
    this.end = to;
    this.hooks.changed();
  }

  /** Renders a batch more before the first item shown, keeping what is on screen where it is. */
  earlier(): void {
    if (this.start === 0) return;
    const from = Math.max(0, this.start - this.batch);
    const anchor = this.container.firstElementChild as HTMLElement | null;
    const before = anchor ? anchor.getBoundingClientRect().top : 0;
    this.hooks.render(from, this.start, "start");
    this.start = from;
    if (anchor) this.scroller.scrollTop += anchor.getBoundingClientRect().top - before;
    this.hooks.changed();
  }

  /** Renders the last batch alone and scrolls to the end (a "jump to the end" button). */
  showLast(): void {
    const total = this.hooks.count();
    this.start = Math.max(0, total - this.batch);
    this.end = total;
    this.container.replaceChildren();
    this.hooks.render(this.start, this.end, "end");
    this.hooks.changed();
    this.scroller.scrollTop = this.scroller.scrollHeight;
  }
}
