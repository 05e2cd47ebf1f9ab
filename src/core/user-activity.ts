// Background indexing gives way while the user types. On Linux the indexing threads already run at
// a lower priority (thread-priority.ts); elsewhere a thread's priority cannot be lowered without
// lowering the whole process, so a sync that runs while someone types rests between its batches
// instead: after each, for as long as the work since the last rest took. That halves what indexing
// takes from the cores while keystrokes arrive, without stopping it for someone who types for an
// hour, and it runs at full speed again once they pause.

import { setTimeout as delay } from 'node:timers/promises';

/** How long after the last keystroke the user counts as typing. */
const TYPING_MS = 1_000;

export class UserActivity {
  private lastActive = Number.NEGATIVE_INFINITY;
  private readonly typingMs: number;

  constructor(typingMs = TYPING_MS) {
    this.typingMs = typingMs;
  }

  /** A keystroke, or anything else the cores should be free for. */
  noteActive(): void {
    this.lastActive = performance.now();
  }

  get active(): boolean {
    return performance.now() - this.lastActive < this.typingMs;
  }

  /**
   * After background work that took `workedMs`: while the user is active, waits that long, or
   * until they stop or `signal` aborts, whichever comes first. Resolves true if it waited at all.
   */
  async rest(workedMs: number, signal?: AbortSignal): Promise<boolean> {
    const until = performance.now() + workedMs;
    let rested = false;
    for (;;) {
      const now = performance.now();
      const wait = Math.min(until, this.lastActive + this.typingMs) - now;
      if (wait <= 0 || signal?.aborted) return rested;
      rested = true;
      // An abort rejects the wait; the loop then sees the signal and returns.
      await delay(wait, undefined, signal ? { signal } : {}).catch(() => undefined);
    }
  }
}
