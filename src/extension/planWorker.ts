// The extension host's one worker thread for plan work (planWork.ts): a save of a large plan spends
// seconds in fsync, and analysing 20,000 files against a wave takes long enough to stall the editor,
// so neither runs on the extension host's thread. Requests are answered in order. When the worker
// cannot start (its bundle is missing) the work runs in this thread, and the log says so; when the
// worker dies, its pending requests fail and the next request starts a new one.
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { releaseLockOfStoppedThread } from '../node/planWriteLock';
import { runPlanWork } from './planWork';
import type { PlanWorkKind, PlanWorkTypes, SaveWork } from './planWork';

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** What the worker answers. */
type WorkReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; message: string; stack?: string };

export class PlanWorker {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private disposed = false;
  /** The checkouts of the saves the worker has not answered yet, by request id: a worker that stops mid-save leaves their plan-write lock. */
  private readonly saving = new Map<number, { root: string; worker: Worker }>();
  /** How many requests ran in the worker and how many in the host's thread (tests and the log read it). */
  readonly counts = { worker: 0, thread: 0 };

  constructor(
    /** dist/planWorker.js of the installed extension. */
    private readonly bundle: string,
    private readonly report: (message: string) => void,
  ) {}

  /** Runs one piece of work off the extension host's thread. */
  run<K extends PlanWorkKind>(kind: K, params: PlanWorkTypes[K]['params']): Promise<PlanWorkTypes[K]['result']> {
    if (this.disposed) return Promise.reject(new Error('the plan worker was stopped'));
    const worker = this.start();
    if (worker === undefined) {
      this.counts.thread += 1;
      try {
        return Promise.resolve(runPlanWork(kind, params));
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    }
    this.counts.worker += 1;
    const id = this.nextId++;
    if (kind === 'save') this.saving.set(id, { root: (params as SaveWork).repoRoot, worker });
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ id, kind, params });
    });
  }

  /** Stops the worker; pending requests fail. */
  dispose(): void {
    this.disposed = true;
    void this.worker?.terminate();
    this.worker = undefined;
    this.failPending(new Error('the plan worker was stopped'));
  }

  private start(): Worker | undefined {
    if (this.worker !== undefined) return this.worker;
    if (!existsSync(this.bundle)) {
      this.report(`the plan worker ${this.bundle} is missing: plan work runs in the extension host's thread`);
      return undefined;
    }
    const worker = new Worker(this.bundle);
    // The worker must never keep the extension host alive on its own.
    worker.unref();
    // Known from the start: a stopped worker no longer has one.
    const thread = worker.threadId;
    worker.on('message', (reply: WorkReply) => {
      this.saving.delete(reply.id);
      const pending = this.pending.get(reply.id);
      if (pending === undefined) return;
      this.pending.delete(reply.id);
      if (reply.ok) pending.resolve(reply.result);
      else {
        const error = new Error(reply.message);
        if (reply.stack !== undefined) error.stack = reply.stack;
        pending.reject(error);
      }
    });
    const lost = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.failPending(new Error(`the plan worker stopped: ${why}`));
      if (!this.disposed) this.report(`the plan worker stopped (${why}); the next request starts a new one`);
    };
    worker.on('error', (error) => lost(error.message));
    worker.on('exit', (code) => {
      // Its thread has stopped (a save cut short by dispose, or an error): the plan-write lock it held would
      // otherwise stand until stale, since this process, which it names, runs on (src/node/planWriteLock.ts).
      for (const [id, save] of this.saving) {
        if (save.worker !== worker) continue;
        this.saving.delete(id);
        if (releaseLockOfStoppedThread(save.root, thread)) this.report(`the plan worker stopped in the middle of a save into ${save.root}; its plan-write lock was let go`);
      }
      lost(`exit code ${code}`);
    });
    this.worker = worker;
    return worker;
  }

  private failPending(error: Error): void {
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}
