// `npm run bench`: every benchmark of the project, one after the other, printing what each measured.
// Benchmarks are never part of `npm test`; their numbers go into the closing notes of the issues.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Each benchmark runs as its own process so one's warm JIT and caches never flatter another. */
const benchmarks: Array<{ name: string; command: string[] }> = [
  { name: 'scope engine', command: ['--import', 'tsx', join(__dirname, 'scopeEngine.ts')] },
  { name: 'write hook latency', command: ['--import', 'tsx', join(__dirname, 'hookLatency.ts')] },
  { name: 'dispatch hook latency', command: ['--import', 'tsx', join(__dirname, 'dispatchLatency.ts')] },
  { name: 'sync across clones (publish, sync, verify)', command: ['--import', 'tsx', join(__dirname, 'syncSpeed.ts')] },
  { name: 'turn backstop (snapshot, diff, post-bash)', command: ['--import', 'tsx', join(__dirname, 'backstopSnapshot.ts')] },
  { name: 'editor save and analysis stall (plan worker)', command: ['--import', 'tsx', join(__dirname, 'editorSave.ts')] },
  { name: 'planner speed (Playwright, code-server)', command: [join(__dirname, 'plannerSpeed.mjs')] },
];

const only = process.argv.slice(2);
let failed = 0;
for (const benchmark of benchmarks) {
  if (only.length > 0 && !only.some((word) => benchmark.name.includes(word))) continue;
  const script = benchmark.command[benchmark.command.length - 1] as string;
  if (!existsSync(script)) {
    console.log(`\n=== ${benchmark.name}: missing ${script}`);
    failed += 1;
    continue;
  }
  console.log(`\n=== ${benchmark.name}`);
  const run = spawnSync(process.execPath, benchmark.command, { stdio: 'inherit' });
  if (run.status !== 0) failed += 1;
}
process.exitCode = failed > 0 ? 1 : 0;
