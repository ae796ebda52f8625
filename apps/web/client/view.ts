/**
 * What every view of the app (sessions, search, a session, usage) gives the shell: its element,
 * and its answers to the keyboard (`j`/`k` through its list, `Enter` to open, `Esc` back, `/`
 * to search).
 */
export interface View {
  el: HTMLElement;
  /** `j` (+1) and `k` (-1). */
  move?(delta: number): void;
  /** `Enter`. */
  open?(): void;
  /** `Esc`; true when the view used it (else the shell goes back). */
  escape?(): boolean;
  /** The same route with other parameters (a deep link followed within the view). */
  update?(params: URLSearchParams): void;
  /** Called when the view is left. */
  dispose?(): void;
}

/** Sets the hash without adding a history entry (filters, a selection). */
export function replaceHash(hash: string): void {
  if (location.hash !== hash) history.replaceState(null, "", hash);
}
