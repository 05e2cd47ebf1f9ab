// When to restart the engine worker after it dies: 0.5 s, 1 s, 2 s … up to 30 s, and back to 0.5 s
// once a worker has stayed up for a minute. Plain data in and out (no vscode), so it is unit-tested.

/** The first restart waits this long: long enough not to spin on a worker that dies at once. */
export const RESTART_FIRST_MS = 500;
/** The longest wait between restarts: a broken worker is retried twice a minute, no more. */
export const RESTART_MAX_MS = 30_000;
/** A worker that ran this long before it died counts as healthy: the next restart is quick again. */
export const RESTART_HEALTHY_MS = 60_000;

export class RestartBackoff {
  /** Crashes in a row, each within RESTART_HEALTHY_MS of the start before it. */
  private streak = 0;

  /** The wait before the next start, given how long the worker that just died had been running. */
  next(ranForMs: number): number {
    if (ranForMs >= RESTART_HEALTHY_MS) this.streak = 0;
    const delay = Math.min(RESTART_MAX_MS, RESTART_FIRST_MS * 2 ** Math.min(this.streak, 16));
    this.streak++;
    return delay;
  }
}
