// Benchmark of the scope engine (issue: "Scope engine", § 5). Workload: N agents × M entries, half plain
// paths, half globs (`src/mod<i>/sub<k>/**` plus one test glob: `src/mod<i>/**/*.test.ts` per agent, or a
// `**/*.test.ts` shared by all agents), against K known files `src/mod<i%64>/sub<(i/64)%50>/file<i>.ts`
// (every 10th a `.test.ts`). Measures in-process `findCollisions` and `wave-scope validate --assert-disjoint`
// as a whole process (known files from a file, and from `git ls-files` in a real repository). Also measures what
// the write gate does on every hook call: normalising and compiling a manifest's entries (plain paths,
// directories, globs and brace lists), then matching one path against them.
//
//   node --import tsx bench/scopeEngine.ts [--runs N]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { findCollisions } from '../src/planner/scope/collisions';
import { FileIndex } from '../src/planner/scope/fileIndex';
import { compileScopeEntry, normalizeScopeEntry } from '../src/planner/scope/scopeEntry';
import type { ScopeRecord } from '../src/planner/scope/collisions';

const cli = join(__dirname, '..', 'dist', 'cli.js');
const runsFlag = process.argv.indexOf('--runs');
const runs = runsFlag === -1 ? 7 : Number(process.argv[runsFlag + 1]);

function knownFiles(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `src/mod${i % 64}/sub${Math.floor(i / 64) % 50}/file${i}${i % 10 === 0 ? '.test' : ''}.ts`);
}

function wave(agents: number, entries: number, files: readonly string[], sharedTestGlob: boolean): ScopeRecord[] {
  const plainCount = Math.floor(entries / 2);
  const globCount = entries - plainCount;
  return Array.from({ length: agents }, (_, agent) => {
    // Agent i owns module i (the workload has at most 64 agents, one per module).
    const plain = files.filter((_, i) => i % 64 === agent).slice(0, plainCount);
    const globs = Array.from({ length: globCount - 1 }, (_, k) => `src/mod${agent}/sub${k}/**`);
    globs.push(sharedTestGlob ? '**/*.test.ts' : `src/mod${agent}/**/*.test.ts`);
    return { id: `agent-${agent}`, files: [...plain, ...globs] };
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function timeInProcess(records: ScopeRecord[], files: readonly string[]): { median: number; min: number; collisions: number } {
  const times: number[] = [];
  let collisions = 0;
  for (let run = 0; run < runs + 1; run += 1) {
    const started = performance.now();
    const report = findCollisions(records, { knownFiles: files });
    const elapsed = performance.now() - started;
    if (run > 0) times.push(elapsed); // the first run warms the JIT up
    collisions = report.collisions.length;
  }
  return { median: median(times), min: Math.min(...times), collisions };
}

function timeProcess(args: string[], cwd: string): { median: number; min: number; status: number | null } {
  return timeNode([cli, ...args], cwd);
}

function timeNode(args: string[], cwd: string): { median: number; min: number; status: number | null } {
  const times: number[] = [];
  let status: number | null = null;
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 30 });
    times.push(performance.now() - started);
    status = result.status;
  }
  return { median: median(times), min: Math.min(...times), status };
}

/** A real git repository whose index lists the files (blobs are empty; no file is written to the work tree). */
function gitRepositoryWith(files: readonly string[], dir: string): void {
  execFileSync('git', ['init', '--quiet', dir]);
  const emptyBlob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: dir, input: '' }).toString().trim();
  execFileSync('git', ['update-index', '--add', '--index-info'], { cwd: dir, input: files.map((file) => `100644 ${emptyBlob}\t${file}`).join('\n') });
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

/** A manifest's entries as the write gate sees them: 40% plain paths, 20% directories, 30% globs, 10% brace lists. */
function gateEntries(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const kind = i % 10;
    if (kind < 4) return `src/mod${i}/sub${i % 7}/file${i}.ts`;
    if (kind < 6) return `src/mod${i}/`;
    if (kind < 9) return `src/mod${i}/**/*.test.ts`;
    return `src/mod${i}/{index,main}.{ts,tsx}`;
  });
}

/** Normalise and compile every entry afresh (no cache, as in a new hook process), then match one path. */
function timeCompilation(entries: readonly string[]): { median: number; min: number } {
  const times: number[] = [];
  let matched = 0;
  for (let run = 0; run < 41; run += 1) {
    const started = performance.now();
    const compiled = entries.map((entry) => compileScopeEntry(normalizeScopeEntry(entry)));
    if (compiled.some((entry) => entry.matches('src/mod9/index.tsx'))) matched += 1;
    const elapsed = performance.now() - started;
    if (run > 0) times.push(elapsed);
  }
  if (matched !== 41) throw new Error('the gate workload must match its probe path');
  return { median: median(times), min: Math.min(...times) };
}

export function runScopeEngineBenchmark(): void {
  const scenarios = [
    { agents: 32, entries: 50, files: 100_000, inProcessTarget: 100, processTarget: 1000 },
    { agents: 64, entries: 100, files: 200_000, inProcessTarget: undefined, processTarget: 3000 },
  ];
  console.log(`Scope engine (median of ${runs} runs; node ${process.version})`);
  const compilation = timeCompilation(gateEntries(500));
  console.log(`\nWrite gate's per-call work: normalise and compile 500 entries, match one path (median of 40 runs)`);
  console.log(`  normalise + compile + match               median ${ms(compilation.median)}, min ${ms(compilation.min)}`);
  for (const scenario of scenarios) {
    const files = knownFiles(scenario.files);
    const work = mkdtempSync(join(tmpdir(), 'wave-scope-bench-'));
    try {
      const repo = join(work, 'repo');
      mkdirSync(repo);
      gitRepositoryWith(files, repo);
      writeFileSync(join(work, 'files.txt'), `${files.join('\n')}\n`);
      for (const shared of [false, true]) {
        const records = wave(scenario.agents, scenario.entries, files, shared);
        const sidecar = join(work, `wave-${shared ? 'shared' : 'own'}.json`);
        writeFileSync(sidecar, JSON.stringify(records));
        const label = `${scenario.agents} agents × ${scenario.entries} entries, ${scenario.files.toLocaleString('en')} files, test glob ${shared ? 'shared by all' : 'per agent'}`;
        const inProcess = timeInProcess(records, files);
        const index = new FileIndex(files);
        const prebuilt = timeInProcess(records, index as unknown as string[]);
        const fromFile = timeProcess(['validate', '--assert-disjoint', sidecar, '--no-manifest', '--known-files', join(work, 'files.txt')], work);
        const fromGit = timeProcess(['validate', '--assert-disjoint', sidecar, '--no-manifest'], repo);
        console.log(`\n${label}`);
        console.log(`  collisions found                          ${inProcess.collisions}`);
        console.log(`  findCollisions, in process                median ${ms(inProcess.median)}, min ${ms(inProcess.min)}${scenario.inProcessTarget && !shared ? ` (target < ${scenario.inProcessTarget} ms)` : ''}`);
        console.log(`  findCollisions, file index prebuilt       median ${ms(prebuilt.median)}, min ${ms(prebuilt.min)}`);
        console.log(`  wave-scope validate, --known-files        median ${ms(fromFile.median)}, min ${ms(fromFile.min)} (exit ${fromFile.status})${!shared ? ` (target < ${scenario.processTarget} ms)` : ''}`);
        console.log(`  wave-scope validate, git ls-files         median ${ms(fromGit.median)}, min ${ms(fromGit.min)} (exit ${fromGit.status})`);
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  console.log(`\nFor scale, on this machine in this run: node -e 0 median ${ms(timeNode(['-e', '0'], tmpdir()).median)}, wave-scope --version median ${ms(timeProcess(['--version'], tmpdir()).median)}`);
}

if (require.main === module) runScopeEngineBenchmark();
