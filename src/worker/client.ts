// The host's side of the worker protocol (src/protocol/worker.ts): starts the engine worker, sends
// typed requests, matches responses by id, replaces a worker that dies, and hands events to
// listeners. It imports nothing from VS Code, so tests and benchmarks drive the worker through
// this same client; nothing here opens SQLite.

import { fork, type ChildProcess } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { ENGINE_NODE_FLAGS, engineEnvironment } from '../core/engine-process.ts';
import type { ErrorCode, FolderSpec, FromWorker, RequestBody, RequestResult, RequestType, ToWorker, WorkerEvent } from '../protocol/worker.ts';
import { RestartBackoff } from './backoff.ts';

export type Result<T> = { ok: true; value: T } | { ok: false; error: { code: ErrorCode; message: string } };

/** Where the client's diagnostics go (VS Code's log output channel has this shape). */
export interface ClientLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** A listener registration; `dispose` removes it (VS Code's Disposable has this shape). */
export interface Subscription {
  dispose(): void;
}

/** A minimal typed event: hosts subscribe with a listener and dispose the subscription. */
class Emitter<T> {
  private readonly listeners = new Set<(value: T) => void>();
  readonly event = (listener: (value: T) => void): Subscription => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };
  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

const STOPPED = { ok: false, error: { code: 'cancelled', message: 'the engine stopped' } } as const;

/** How long a worker asked to stop may take to close its databases before it is killed. */
const EXIT_GRACE_MS = 5_000;

/** What the client says about a worker that died without being asked to stop. */
export type WorkerLifecycle =
  | { type: 'crashed'; exitCode: number; restartInMs: number; restarts: number }
  /** A fresh worker runs and has re-opened the folders the dead one had open. */
  | { type: 'restarted'; restarts: number };

export class EngineClient implements Subscription {
  private worker: ChildProcess | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, (response: Result<unknown>) => void>();
  private readonly events = new Emitter<WorkerEvent>();
  readonly onEvent = this.events.event;
  /** The search in flight, cancelled when the next one starts. */
  private currentSearch: number | undefined;
  private readonly workerFile: string;
  private readonly log: ClientLog;
  private readonly lifecycle = new Emitter<WorkerLifecycle>();
  readonly onLifecycle = this.lifecycle.event;
  private readonly backoff = new RestartBackoff();
  private startedAt = 0;
  private restarts = 0;
  /** The folders last opened: a restarted worker opens them again before it answers anything else. */
  private lastOpen: FolderSpec[] | undefined;
  /** Set while a crashed worker waits to be replaced; requests wait for it. */
  private restarting: Promise<void> | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private endRestart: (() => void) | undefined;
  private disposed = false;

  constructor(workerFile: string, log: ClientLog) {
    this.workerFile = workerFile;
    this.log = log;
  }

  /** The process id of the running engine worker, if one runs. */
  get workerPid(): number | undefined {
    return this.worker?.pid;
  }

  private start(): ChildProcess {
    if (this.worker) return this.worker;
    // A Node process of its own rather than a thread of the host, for the flags and environment of
    // engine-process.ts: they hold for a whole process, and the extension host is shared with every
    // other extension. Without them the peak memory of indexing a big tree doubles. A process of its
    // own also means that an engine killed for its memory takes nothing of the host's with it.
    const worker = fork(this.workerFile, [], {
      execArgv: [...ENGINE_NODE_FLAGS],
      // Structured clone, as between threads: typed arrays and Maps arrive as they were sent.
      serialization: 'advanced',
      // In VS Code's extension host process.execPath is Electron's binary; this makes it plain Node.
      env: { ...engineEnvironment(), ELECTRON_RUN_AS_NODE: '1' },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.startedAt = Date.now();
    // What the worker prints is an uncaught error's stack or a library's warning: it belongs in the host's log.
    worker.stderr?.setEncoding('utf8').on('data', (text: string) => this.log.warn(`engine worker: ${text.trimEnd()}`));
    worker.on('message', (message: FromWorker) => {
      if (message.type === 'response') {
        const settle = this.pending.get(message.id);
        this.pending.delete(message.id);
        settle?.(message.ok ? { ok: true, value: message.value } : { ok: false, error: message.error });
      } else {
        this.events.fire(message);
      }
    });
    worker.on('error', (error: Error) => this.log.error(`engine worker failed: ${error.stack ?? error.message}`));
    worker.on('exit', (exitCode, signal) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      // Killed by a signal (the kernel's OOM killer, a user's kill): exit code 128 + n, as a shell reports it.
      const code = exitCode ?? 128 + (signal ? (osConstants.signals[signal] ?? 0) : 0);
      if (code !== 0) this.log.error(`engine worker exited with code ${code}${signal ? ` (${signal})` : ''}`);
      for (const settle of this.pending.values()) settle({ ok: false, error: { code: 'failed', message: 'the engine worker stopped' } });
      this.pending.clear();
      this.events.fire({ type: 'error', message: `The engine stopped (exit code ${code}).` });
      if (!this.disposed) this.scheduleRestart(code);
    });
    this.worker = worker;
    return worker;
  }

  /**
   * A worker that exits on its own (a crash, an uncaught error, `process.exit`) is replaced after a
   * backoff (backoff.ts); meanwhile requests wait rather than reach a worker with no folders open.
   */
  private scheduleRestart(exitCode: number): void {
    const delay = this.backoff.next(Date.now() - this.startedAt);
    this.restarts++;
    const restarts = this.restarts;
    this.log.warn(`restarting the engine worker in ${delay} ms (restart ${restarts})`);
    this.lifecycle.fire({ type: 'crashed', exitCode, restartInMs: delay, restarts });
    this.restarting = new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(this.restartTimer);
        this.restartTimer = undefined;
        this.restarting = undefined;
        this.endRestart = undefined;
        resolve();
      };
      this.endRestart = finish;
      this.restartTimer = setTimeout(() => {
        this.restartTimer = undefined;
        void this.reopen().finally(() => {
          // The fresh worker may have died while opening: a newer restart then owns the gate, and
          // whoever waited on this one loops on to wait for that one.
          if (this.endRestart !== finish) return resolve();
          finish();
          if (this.disposed) return;
          this.log.info(`engine worker restarted (restart ${restarts})`);
          this.lifecycle.fire({ type: 'restarted', restarts });
        });
      }, delay);
    });
  }

  private async reopen(): Promise<void> {
    if (this.disposed || !this.lastOpen) return;
    const opened = await this.send({ type: 'open', folders: this.lastOpen });
    if (!opened.ok) this.log.error(`the restarted engine could not open the index: ${opened.error.message}`);
  }

  async request<T extends RequestType>(body: RequestBody<T>): Promise<Result<RequestResult<T>>> {
    while (this.restarting) await this.restarting;
    // Disposed while waiting for a restart: no new worker after deactivation.
    if (this.disposed) return STOPPED;
    return this.send(body);
  }

  private send<T extends RequestType>(body: RequestBody<T>): Promise<Result<RequestResult<T>>> {
    if (body.type === 'open') this.lastOpen = (body as RequestBody<'open'>).folders;
    else if (body.type === 'close') this.lastOpen = undefined;
    const id = this.nextId++;
    const worker = this.start();
    return new Promise((resolve) => {
      this.pending.set(id, resolve as (response: Result<unknown>) => void);
      worker.send({ ...body, id });
    });
  }

  /** Sends a message outside the request/response pairing (the test build's crash hook). */
  post(message: ToWorker): void {
    if (this.worker?.connected) this.worker.send(message);
  }

  /** Like `request`, but a newer search cancels this one, which then resolves as `cancelled`. */
  async search<T extends 'search' | 'similar'>(body: RequestBody<T>): Promise<Result<RequestResult<T>>> {
    while (this.restarting) await this.restarting;
    if (this.disposed) return STOPPED;
    if (this.currentSearch !== undefined) this.cancel(this.currentSearch);
    const id = this.nextId;
    this.currentSearch = id;
    return this.send(body).finally(() => {
      if (this.currentSearch === id) this.currentSearch = undefined;
    });
  }

  cancel(id: number): void {
    this.post({ type: 'cancel', id });
  }

  /** Closes every database and ends the worker; the next request starts a fresh one. */
  async stop(): Promise<void> {
    // A restart still waiting is called off; the next request starts a fresh worker.
    this.endRestart?.();
    const worker = this.worker;
    if (!worker) return;
    await Promise.race([this.send({ type: 'close' }), new Promise((r) => setTimeout(r, EXIT_GRACE_MS))]);
    this.worker = undefined;
    await endProcess(worker);
    for (const settle of this.pending.values()) settle({ ok: false, error: { code: 'cancelled', message: 'the engine stopped' } });
    this.pending.clear();
  }

  dispose(): void {
    this.disposed = true;
    void this.stop();
    this.events.dispose();
    this.lifecycle.dispose();
  }
}

/** Closes the worker's channel, on which it exits by itself, and kills it if it has not within the grace. */
async function endProcess(worker: ChildProcess): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  if (worker.connected) worker.disconnect();
  const grace = setTimeout(() => worker.kill('SIGKILL'), EXIT_GRACE_MS);
  await exited;
  clearTimeout(grace);
}
