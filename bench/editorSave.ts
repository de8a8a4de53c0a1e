// How long the extension host's thread stalls while a large plan is saved (issue 15: 64 agents × 52
// entries took 1–3 s of fsyncs). The same draft is saved in this thread (as the extension did) and
// through the extension's worker thread (src/extension/planWorker.ts, dist/planWorker.js), taking
// turns at going first; a 5 ms interval timer records the longest gap between its ticks, which is how
// long the thread could answer nothing. Also the editor's analysis of the plan (owners, collisions,
// problems of the declaration files). Run after `npm run build`: `node --import tsx bench/editorSave.ts [--runs N]`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PlanWorker } from '../src/extension/planWorker';
import { runPlanWork } from '../src/extension/planWork';
import type { PlanWorkKind, PlanWorkTypes } from '../src/extension/planWork';

const runsFlag = process.argv.indexOf('--runs');
const RUNS = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : 5;
const AGENTS = 64;
const ENTRIES = 52;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Runs `work` while a 5 ms timer ticks; the longest gap between ticks is the thread's stall. */
async function measured(work: () => Promise<unknown>): Promise<{ ms: number; stall: number }> {
  let last = performance.now();
  let stall = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 5);
  const started = performance.now();
  await new Promise((wake) => setTimeout(wake, 20));
  last = performance.now();
  await work();
  const ms = performance.now() - started - 20;
  await new Promise((wake) => setTimeout(wake, 20));
  clearInterval(timer);
  return { ms, stall };
}

async function main(): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-bench-save-')));
  try {
    const files: string[] = [];
    for (let agent = 0; agent < AGENTS; agent += 1) {
      mkdirSync(join(root, 'src', `agent${agent}`), { recursive: true });
      for (let entry = 0; entry < ENTRIES; entry += 1) {
        const path = `src/agent${agent}/file${entry}.ts`;
        writeFileSync(join(root, path), `export const x = ${entry};\n`);
        files.push(path);
      }
    }
    execFileSync('git', ['init', '--quiet', root]);
    const draft = {
      waves: [{ wave: 1, role: 'implementation', agents: Array.from({ length: AGENTS }, (_, agent) => ({ id: `agent-${agent}`, color: '#3794ff', entries: files.filter((file) => file.startsWith(`src/agent${agent}/`)) })) }],
      activeWave: 1,
    };
    const worker = new PlanWorker(join(__dirname, '..', 'dist', 'planWorker.js'), (message) => console.log(`worker: ${message}`));
    const inThread = <K extends PlanWorkKind>(kind: K, params: PlanWorkTypes[K]['params']) => Promise.resolve(runPlanWork(kind, params));
    const viaWorker = <K extends PlanWorkKind>(kind: K, params: PlanWorkTypes[K]['params']) => worker.run(kind, params);
    const save = { repoRoot: root, draft, ignoreCase: false, files, stateDirName: undefined };
    const insight = { repoRoot: root, draft, files, ignoreCase: false, draftWaves: false, remembered: { colors: {}, roles: {} } };
    const results: Record<string, { ms: number[]; stall: number[] }> = {};
    const record = (name: string, value: { ms: number; stall: number }) => {
      const entry = (results[name] ??= { ms: [], stall: [] });
      entry.ms.push(value.ms);
      entry.stall.push(value.stall);
    };
    // One warm-up of each, not counted (the worker's first request loads its bundle).
    await viaWorker('save', save);
    await inThread('save', save);
    for (let run = 0; run < RUNS; run += 1) {
      const order = run % 2 === 0 ? ['thread', 'worker'] : ['worker', 'thread'];
      for (const where of order) {
        const run = where === 'thread' ? inThread : viaWorker;
        record(`save, ${where}`, await measured(async () => {
          const outcome = await run('save', save);
          if (!outcome.ok) throw new Error(`the save failed: ${outcome.message}`);
        }));
        record(`analysis, ${where}`, await measured(async () => {
          const data = await run('insight', insight);
          if (data.waves[0]?.agents.length !== AGENTS || data.waves[0].collisions.length !== 0) throw new Error('the analysis is wrong');
        }));
      }
    }
    worker.dispose();
    console.log(`${AGENTS} agents × ${ENTRIES} entries, ${files.length} files, ${RUNS} runs (medians; longest stall of the calling thread)`);
    console.log('| work | wall | longest stall of the host thread |');
    console.log('| --- | --- | --- |');
    for (const [name, { ms, stall }] of Object.entries(results)) {
      console.log(`| ${name} | ${median(ms).toFixed(0)} ms (${Math.min(...ms).toFixed(0)}–${Math.max(...ms).toFixed(0)}) | ${median(stall).toFixed(0)} ms (max ${Math.max(...stall).toFixed(0)}) |`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
