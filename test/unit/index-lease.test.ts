import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import { IndexLease, LEASE_TTL_MS } from '../../src/core/index-lease.ts';
import { IndexStore } from '../../src/core/store/store.ts';
import { tempDir } from './helpers/store.ts';

function twoConnections() {
  const file = path.join(tempDir(), 'index.db');
  return [new IndexStore(file), new IndexStore(file)] as const;
}

test('only one process holds the lease while its heartbeat is fresh', () => {
  const [a, b] = twoConnections();
  let now = 1_000_000;
  const first = new IndexLease(a, { kind: 'vscode', now: () => now });
  const second = new IndexLease(b, { kind: 'mcp', now: () => now });
  assert.deepEqual(first.tryAcquire(), { acquired: true });
  const refused = second.tryAcquire();
  assert.equal(refused.acquired, false);
  assert.equal(!refused.acquired && refused.holder.kind, 'vscode');
  now += LEASE_TTL_MS - 1;
  assert.equal(first.renew(), true);
  now += LEASE_TTL_MS - 1;
  assert.equal(second.tryAcquire().acquired, false, 'renewed, so still held');
  a.close();
  b.close();
});

test('an abandoned lease (no heartbeat for the TTL) is taken over, and the old holder learns it lost it', () => {
  const [a, b] = twoConnections();
  let now = 1_000_000;
  const first = new IndexLease(a, { kind: 'vscode', now: () => now });
  const second = new IndexLease(b, { kind: 'mcp', now: () => now });
  first.tryAcquire();
  now += LEASE_TTL_MS + 1;
  assert.deepEqual(second.tryAcquire(), { acquired: true });
  assert.equal(first.renew(), false);
  assert.equal(first.holder()?.kind, 'mcp');
  a.close();
  b.close();
});

test('a lease whose process has died is free at once; a released lease too', () => {
  const [a, b] = twoConnections();
  const first = new IndexLease(a, { kind: 'vscode', pidAlive: () => false });
  const second = new IndexLease(b, { kind: 'mcp', pidAlive: () => false });
  first.tryAcquire();
  assert.deepEqual(second.tryAcquire(), { acquired: true }, 'same host, pid gone');
  second.release();
  assert.equal(second.holder(), undefined);
  const third = new IndexLease(a, { kind: 'cli' });
  assert.deepEqual(third.tryAcquire(), { acquired: true });
  a.close();
  b.close();
});

test('the holder can publish indexing progress for readers', () => {
  const [a, b] = twoConnections();
  const owner = new IndexLease(a, { kind: 'vscode' });
  owner.tryAcquire();
  owner.renew({ phase: 'indexing', filesFound: 100, filesDone: 40 });
  const reader = new IndexLease(b, { kind: 'mcp' });
  assert.deepEqual(reader.holder()?.progress, { phase: 'indexing', filesFound: 100, filesDone: 40 });
  a.close();
  b.close();
});

test("a worker restarted in the same process takes over its dead predecessor's lease at once", () => {
  const [a, b] = twoConnections();
  const now = 1_000_000;
  const dead = new IndexLease(a, { kind: 'vscode', now: () => now, onePerProcess: true });
  assert.deepEqual(dead.tryAcquire(), { acquired: true });
  // The dead worker never released it; its heartbeat is fresh and its pid (ours) is alive.
  const restarted = new IndexLease(b, { kind: 'vscode', now: () => now, onePerProcess: true });
  assert.deepEqual(restarted.tryAcquire(), { acquired: true });
  const other = new IndexLease(a, { kind: 'mcp', now: () => now });
  assert.equal(other.tryAcquire().acquired, false, 'another kind in the same process still waits');
  a.close();
  b.close();
});

test('a reader finds a live holder without waiting for the write lock, so a long write never makes its heartbeat fail', () => {
  const file = path.join(tempDir(), 'index.db');
  const holderStore = new IndexStore(file);
  const readerStore = new IndexStore(file);
  new IndexLease(holderStore, { kind: 'vscode' }).tryAcquire();
  // The holder's indexing transaction, as long as it takes: the reader's busy wait (5 s) would end
  // in "database is locked".
  const writer = new Database(file);
  writer.exec('BEGIN IMMEDIATE');
  try {
    const started = performance.now();
    const claim = new IndexLease(readerStore, { kind: 'vscode' }).tryAcquire();
    assert.equal(claim.acquired, false);
    assert.equal(!claim.acquired && claim.holder.kind, 'vscode');
    assert.ok(performance.now() - started < 1_000, `answered in ${(performance.now() - started).toFixed(0)} ms`);
  } finally {
    writer.exec('ROLLBACK');
    writer.close();
    holderStore.close();
    readerStore.close();
  }
});
