// The worker thread's entry (bundled as dist/planWorker.js): answers each request of planWorker.ts with
// the result of runPlanWork, or with the error it threw. No `vscode` is reachable from here.
import { parentPort } from 'node:worker_threads';
import { runPlanWork } from './planWork';
import type { PlanWorkKind } from './planWork';

/** A request from the extension host. */
interface WorkRequest {
  readonly id: number;
  readonly kind: PlanWorkKind;
  readonly params: never;
}

parentPort?.on('message', (request: WorkRequest) => {
  try {
    parentPort?.postMessage({ id: request.id, ok: true, result: runPlanWork(request.kind, request.params) });
  } catch (error) {
    parentPort?.postMessage({ id: request.id, ok: false, message: error instanceof Error ? error.message : String(error), stack: error instanceof Error ? error.stack : undefined });
  }
});
