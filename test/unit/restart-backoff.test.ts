import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RESTART_HEALTHY_MS, RESTART_MAX_MS, RestartBackoff } from '../../src/worker/backoff.ts';

test('a worker that keeps dying is restarted after 0.5 s, 1 s, 2 s … and never waits more than 30 s', () => {
  const backoff = new RestartBackoff();
  const delays = Array.from({ length: 10 }, () => backoff.next(100));
  assert.deepEqual(delays.slice(0, 4), [500, 1_000, 2_000, 4_000]);
  assert.equal(Math.max(...delays), RESTART_MAX_MS);
  assert.equal(delays.at(-1), RESTART_MAX_MS);
});

test('a worker that stayed up for a minute before it died is restarted quickly again', () => {
  const backoff = new RestartBackoff();
  for (let i = 0; i < 5; i++) backoff.next(10);
  assert.equal(backoff.next(RESTART_HEALTHY_MS), 500);
  assert.equal(backoff.next(10), 1_000);
});
