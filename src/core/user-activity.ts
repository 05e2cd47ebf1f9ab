// Background work gives way while the user types. On Linux the indexing threads already run at a
// lower priority (thread-priority.ts); elsewhere a thread's priority cannot be lowered without
// lowering the whole process, so a sync or an embedding pass that runs while someone types rests
// between its steps instead, for as long as the work since its last rest took. That halves what it
// takes from the cores while keystrokes arrive, without stopping it for someone who types for an
// hour, and it runs at full speed again once they pause.

import { setTimeout as delay } from 'node:timers/promises';

/** How long after the last keystroke the user counts as typing. */
const TYPING_MS = 1_000;
/** Work is paced in spans of at least this long: a rest after every short step would mostly add progress messages. */
const MIN_WORK_MS = 200;

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

  /** Paces one piece of background work (a sync, an embedding pass): see `Pace.between`. */
  pace(): Pace {
    return new Pace(this);
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

export class Pace {
  private readonly activity: UserActivity;
  private workingSince = performance.now();

  constructor(activity: UserActivity) {
    this.activity = activity;
  }

  /**
   * Called between two steps of the work. While the user is active and the steps since the last
   * rest took MIN_WORK_MS or more, rests as long as they took (`UserActivity.rest`), with
   * `resting(true)` before and `resting(false)` after. Work done while the user was idle is not
   * counted against them.
   */
  async between(resting: (on: boolean) => void, signal?: AbortSignal): Promise<void> {
    const worked = performance.now() - this.workingSince;
    if (!this.activity.active) {
      this.workingSince = performance.now();
      return;
    }
    if (worked < MIN_WORK_MS) return;
    resting(true);
    await this.activity.rest(worked, signal);
    resting(false);
    this.workingSince = performance.now();
  }
}
