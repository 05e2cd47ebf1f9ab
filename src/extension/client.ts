// The extension host's side of the worker protocol: starts the engine worker, sends typed requests,
// matches responses by id, and turns events into a VS Code event. Nothing here opens SQLite.

import { Worker } from 'node:worker_threads';
import * as vscode from 'vscode';
import type { FromWorker, Request, ResponseValues, ToWorker, WorkerEvent, ErrorCode } from '../worker/protocol.ts';

type RequestBody<T extends Request['type']> = Omit<Extract<Request, { type: T }>, 'id'> & { type: T };

export type Result<T> = { ok: true; value: T } | { ok: false; error: { code: ErrorCode; message: string } };

export class EngineClient implements vscode.Disposable {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, (response: Result<unknown>) => void>();
  private readonly events = new vscode.EventEmitter<WorkerEvent>();
  readonly onEvent = this.events.event;
  /** The search in flight, cancelled when the next one starts. */
  private currentSearch: number | undefined;
  private readonly workerFile: string;
  private readonly log: vscode.LogOutputChannel;

  constructor(workerFile: string, log: vscode.LogOutputChannel) {
    this.workerFile = workerFile;
    this.log = log;
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.workerFile);
    worker.on('message', (message: FromWorker) => {
      if (message.type === 'response') {
        const settle = this.pending.get(message.id);
        this.pending.delete(message.id);
        settle?.(message.ok ? { ok: true, value: message.value } : { ok: false, error: message.error });
      } else {
        this.events.fire(message);
      }
    });
    worker.on('error', (error) => this.log.error(`engine worker failed: ${error.stack ?? error.message}`));
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      if (code !== 0) this.log.error(`engine worker exited with code ${code}`);
      for (const settle of this.pending.values()) settle({ ok: false, error: { code: 'failed', message: 'the engine worker stopped' } });
      this.pending.clear();
      this.events.fire({ type: 'error', message: `The engine stopped (exit code ${code}).` });
    });
    this.worker = worker;
    return worker;
  }

  request<T extends Request['type']>(body: RequestBody<T>): Promise<Result<ResponseValues[T]>> {
    const id = this.nextId++;
    const worker = this.start();
    return new Promise((resolve) => {
      this.pending.set(id, resolve as (response: Result<unknown>) => void);
      worker.postMessage({ ...body, id } as ToWorker);
    });
  }

  /** Like `request`, but a newer search cancels this one, which then resolves as `cancelled`. */
  search<T extends 'search' | 'similar'>(body: RequestBody<T>): Promise<Result<ResponseValues[T]>> {
    if (this.currentSearch !== undefined) this.cancel(this.currentSearch);
    const id = this.nextId;
    this.currentSearch = id;
    return this.request(body).finally(() => {
      if (this.currentSearch === id) this.currentSearch = undefined;
    });
  }

  cancel(id: number): void {
    this.worker?.postMessage({ type: 'cancel', id } satisfies ToWorker);
  }

  /** Closes every database and ends the worker; the next request starts a fresh one. */
  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    await Promise.race([this.request({ type: 'close' }), new Promise((r) => setTimeout(r, 5_000))]);
    this.worker = undefined;
    await worker.terminate();
    for (const settle of this.pending.values()) settle({ ok: false, error: { code: 'cancelled', message: 'the engine stopped' } });
    this.pending.clear();
  }

  dispose(): void {
    void this.stop();
    this.events.dispose();
  }
}
