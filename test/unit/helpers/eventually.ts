// Waiting in a test for another thread or process, which says nothing when it is done.

/**
 * Asks `probe` every 50 ms until it answers with a truthy value or `ms` have passed, and returns
 * its last answer, so that a test asserts on what it waited for.
 */
export async function eventually<T>(probe: () => T | Promise<T>, ms = 5_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const answer = await probe();
    if (answer || Date.now() >= until) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
