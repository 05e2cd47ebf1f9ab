// Who keeps an index up to date. Several processes may open one database (the VS Code extension's
// worker, an MCP server, a CLI run); SQLite's WAL lets them all read while one writes, but only
// one of them should crawl the folder and watch it, or every change is indexed twice and a second
// full index is built beside the first. That one holds the lease: a row in the database's own meta
// table, so the claim lives and dies with the index it is about, needs no lock file beside it and
// works wherever the database lives (the extension keeps it in VS Code's global storage).
//
// The holder renews its heartbeat every HEARTBEAT_MS; a lease whose heartbeat is older than
// LEASE_TTL_MS, or whose process is gone (same host, pid no longer running), is free for the
// taking. Claims run in an IMMEDIATE transaction, so two processes cannot both win. A holder may
// publish its indexing progress with the heartbeat, so readers can report it.
//
// Rejected: a lock file beside the database (a crashed process leaves it behind and nothing in the
// database says so; the extension's storage folder is not the MCP server's to litter), and
// SQLite's own locks (they are per transaction, not per "I am watching this folder").

import os from 'node:os';
import { randomUUID } from 'node:crypto';
import type { IndexStore } from './store/store.ts';

/** The meta key of the lease row. */
export const LEASE_KEY = 'writer';
/** How often a holder renews its claim, in milliseconds. */
export const HEARTBEAT_MS = 5_000;
/** A claim not renewed for this long (milliseconds) is considered abandoned: four missed heartbeats. */
export const LEASE_TTL_MS = 20_000;

/** Who holds the lease, as stored (JSON) in the meta table. */
export interface LeaseHolder {
  /** Unique per process and lease object. */
  id: string;
  /** What kind of process: `vscode`, `mcp`, `cli`, ... — shown to users and agents. */
  kind: string;
  pid: number;
  host: string;
  /** Milliseconds since the epoch when the claim was made. */
  since: number;
  /** Milliseconds since the epoch of the last renewal. */
  heartbeatAt: number;
  /** Set while the holder is indexing; absent when it is idle and watching. */
  progress?: { phase: string; filesFound: number; filesDone: number };
}

export type AcquireResult = { acquired: true } | { acquired: false; holder: LeaseHolder };

export interface LeaseOptions {
  kind: string;
  /** For tests: the clock (milliseconds since the epoch). */
  now?: () => number;
  /** For tests: whether a process on this host is running. */
  pidAlive?: (pid: number) => boolean;
  /**
   * At most one holder of this kind runs in this process at a time (the extension's worker):
   * a claim of the same kind from this pid is then a predecessor that died, taken over at once
   * instead of after LEASE_TTL_MS. Off by default: two CLI runs in one test process may coexist.
   */
  onePerProcess?: boolean;
}

export class IndexLease {
  readonly id = randomUUID();
  private readonly store: IndexStore;
  private readonly kind: string;
  private readonly now: () => number;
  private readonly pidAlive: (pid: number) => boolean;
  private readonly onePerProcess: boolean;
  private since = 0;

  constructor(store: IndexStore, options: LeaseOptions) {
    this.store = store;
    this.kind = options.kind;
    this.now = options.now ?? Date.now;
    this.pidAlive = options.pidAlive ?? processAlive;
    this.onePerProcess = options.onePerProcess ?? false;
  }

  /** Claims the lease if it is free, abandoned or already ours. */
  tryAcquire(): AcquireResult {
    // A live holder is seen with a plain read, which WAL never blocks: a reader asking every
    // heartbeat neither waits for the holder's write transactions (up to busy_timeout, then
    // "database is locked") nor holds them up.
    const seen = this.holder();
    if (seen && seen.id !== this.id) return { acquired: false, holder: seen };
    let other: LeaseHolder | undefined;
    this.store.exchangeMeta(LEASE_KEY, (current) => {
      const holder = parseHolder(current);
      if (holder && holder.id !== this.id && this.isLive(holder)) {
        other = holder;
        return undefined;
      }
      if (!holder || holder.id !== this.id) this.since = this.now();
      return JSON.stringify(this.record());
    });
    return other ? { acquired: false, holder: other } : { acquired: true };
  }

  /** Renews our claim (with progress, if indexing). False if the lease was lost to another process. */
  renew(progress?: LeaseHolder['progress']): boolean {
    let kept = false;
    this.store.exchangeMeta(LEASE_KEY, (current) => {
      const holder = parseHolder(current);
      if (holder && holder.id !== this.id && this.isLive(holder)) return undefined;
      kept = true;
      if (!holder || holder.id !== this.id) this.since = this.now();
      return JSON.stringify({ ...this.record(), ...(progress ? { progress } : {}) });
    });
    return kept;
  }

  /** Gives the lease up, if we hold it, so another process can take over at once. */
  release(): void {
    this.store.exchangeMeta(LEASE_KEY, (current) => (parseHolder(current)?.id === this.id ? null : undefined));
  }

  /** The live holder, if any (ourselves included). */
  holder(): LeaseHolder | undefined {
    const holder = parseHolder(this.store.meta(LEASE_KEY));
    return holder && (holder.id === this.id || this.isLive(holder)) ? holder : undefined;
  }

  private record(): LeaseHolder {
    return { id: this.id, kind: this.kind, pid: process.pid, host: os.hostname(), since: this.since, heartbeatAt: this.now() };
  }

  private isLive(holder: LeaseHolder): boolean {
    if (this.now() - holder.heartbeatAt > LEASE_TTL_MS) return false;
    if (holder.host === os.hostname() && !this.pidAlive(holder.pid)) return false;
    if (this.onePerProcess && holder.kind === this.kind && holder.host === os.hostname() && holder.pid === process.pid) return false;
    return true;
  }
}

/** What each kind of keeper is called when people are told who keeps an index. */
const KIND_NAMES: Record<string, string> = { vscode: 'a VS Code window', mcp: 'a fused-search MCP server', cli: 'fused-search index' };

/** Who holds a lease, in the one wording every host shows: `a VS Code window (pid 4242 on devbox)`. */
export function describeHolder(holder: LeaseHolder): string {
  return `${KIND_NAMES[holder.kind] ?? holder.kind} (pid ${holder.pid}${holder.host ? ` on ${holder.host}` : ''})`;
}

function parseHolder(value: string | undefined): LeaseHolder | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(value) as Partial<LeaseHolder>;
    if (typeof parsed.id !== 'string' || typeof parsed.pid !== 'number' || typeof parsed.heartbeatAt !== 'number') return undefined;
    return { kind: 'unknown', host: '', since: parsed.heartbeatAt, ...parsed } as LeaseHolder;
  } catch {
    return undefined;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
