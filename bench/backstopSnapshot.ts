// Benchmark of the turn backstop (issue 12, "Speed"), in one run on one repository: a 100,000-file
// repository with 50 changed files (20 modified, 20 created, 10 deleted), measured against
// `git status --porcelain --untracked-files=all` in the same run, interleaved:
//
//   git status                 `git status --porcelain --untracked-files=all`, as a process (the yardstick)
//   snapshot + diff, as run    the snapshot after a turn and its diff against the one before it, in-process,
//                              as `wave-scope run` takes it: git run by child_process.spawn, and the listing
//                              of the index reused when the index checksum says it did not change
//   fresh listing              the same with both git calls every time (a turn that staged or committed),
//                              once with child_process.spawn and once with simple-git running the same commands
//   after staging              the snapshot as run when the index changed since the one before: the listing
//                              and the index's stat data (git ls-files --debug) taken again, and each entry's
//                              compared with the one before (none changed here)
//   (the fresh-listing rows are a first snapshot: the listing, its stat data and git diff-files)
//   post-bash                  `node dist/hook.js post-bash` as a whole process, every call seeing the
//                              same 50 changes against the saved snapshot of before them
//
// Targets: snapshot + diff ≤ 1.5× git status, post-bash ≤ 2× git status (medians).
//
//   npm run build && node --import tsx bench/backstopSnapshot.ts [--runs N] [--files N]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { simpleGit } from 'simple-git';
import { nodeSnapshotHost, readIndexChecksum } from '../src/node/backstopGit';
import { backstopExclusions, takeSnapshot } from '../src/planner/backstop/snapshot';
import type { SnapshotHost } from '../src/planner/backstop/snapshot';
import { diffSnapshots } from '../src/planner/backstop/snapshotDiff';
import type { SnapshotDiff } from '../src/planner/backstop/snapshotDiff';

const flag = (name: string, fallback: number) => {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
};
const runs = flag('--runs', 15);
const fileCount = flag('--files', 100_000);
const hookBundle = join(__dirname, '..', 'dist', 'hook.js');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'b@example.invalid', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'b@example.invalid' };
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 });
}

/** The same snapshot host, with simple-git running git. */
function simpleGitHost(root: string): SnapshotHost {
  // The snapshot's commands pin core.fsmonitor off (PINNED_CHANGE_SETTINGS); simple-git refuses any `-c
  // core.fsmonitor` unless told it may, off included.
  const client = simpleGit({ baseDir: root, trimmed: false, maxConcurrentProcesses: 4, unsafe: { allowUnsafeFsMonitor: true } });
  const plain = nodeSnapshotHost(root);
  return {
    git: (args, options) => {
      if (options?.input !== undefined) throw new Error('the simple-git host of this benchmark feeds no stdin');
      return client.raw([...args]);
    },
    inspect: plain.inspect,
  };
}

async function main(root: string): Promise<void> {
  let started = performance.now();
  for (let i = 0; i < fileCount; i += 1) {
    const dir = join(root, `src/mod${i % 100}/sub${Math.floor(i / 100) % 100}`);
    if (i < 10_000) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `file${i}.ts`), `export const value${i} = ${i};\n`);
  }
  mkdirSync(join(root, '.claude'), { recursive: true });
  writeFileSync(
    join(root, '.claude/wave-scope.json'),
    JSON.stringify({ version: 1, wave: 1, role: 'implementation', enforcement: 'strict', allowedPaths: ['docs/'], blockedCommands: [] }),
  );
  writeFileSync(join(root, '.gitignore'), '.orchestrator/\n');
  git(root, 'init', '--quiet', '--initial-branch=main');
  // No automatic gc: 100,000 loose objects would start one in the background, which measures itself.
  git(root, 'config', 'gc.auto', '0');
  git(root, 'config', 'maintenance.auto', 'false');
  git(root, 'add', '--all');
  git(root, 'commit', '--quiet', '-m', 'bench files');
  git(root, 'status', '--porcelain');
  console.log(`repository: ${fileCount} tracked files in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  // The snapshot before the turn, and the post-bash baseline of before the changes.
  const gitDir = join(root, '.git');
  const host = nodeSnapshotHost(root);
  const shipped = nodeSnapshotHost(root, { gitDir });
  const options = { exclude: backstopExclusions({ writeRoot: root, stateDir: join(root, '.claude') }) };
  const payload = JSON.stringify({ session_id: 'bench', cwd: root, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'make' } });
  // CPU time (user + system of the process and the git processes it waited for, from /usr/bin/time) is
  // reported beside wall time: on a loaded machine the wall clock also measures everybody else.
  const timer = ['/usr/bin/time', '/bin/time'].find((candidate) => spawnSync(candidate, ['-f', '%U', 'true']).status === 0);
  const timed = (command: string, args: string[], input?: string) => {
    const started = performance.now();
    const run = spawnSync(timer ?? command, timer === undefined ? args : ['-f', 'CPU %U %S', command, ...args], {
      input: input ?? '',
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      env: { ...process.env, CLAUDE_CODE_SESSION_ID: '' },
    });
    const wall = performance.now() - started;
    const times = /CPU ([\d.]+) ([\d.]+)\s*$/.exec(run.stderr);
    return { ...run, wall, cpu: times === null ? NaN : (Number(times[1]) + Number(times[2])) * 1000 };
  };
  const hookRun = () => timed(process.execPath, [hookBundle, 'post-bash', '--agent-cli', 'claude'], payload);
  // An index written in the last two seconds tells nothing about itself (readIndexChecksum: git's racily
  // clean rule), so no listing would be reused from it: the turn starts on an index older than that, as a
  // turn that does not follow a git command at once does.
  while (Date.now() - statSync(join(gitDir, 'index')).mtimeMs < 2500) await new Promise((tick) => setTimeout(tick, 100));
  const baseline = hookRun();
  if (baseline.status !== 0 || baseline.stdout !== '') throw new Error(`post-bash baseline: ${baseline.status} ${baseline.stdout} ${baseline.stderr}`);
  const storeDir = join(root, '.orchestrator/backstop/hooks');
  const storedBaseline = new Map(readdirSync(storeDir).map((name) => [join(storeDir, name), readFileSync(join(storeDir, name))]));
  const restoreBaseline = () => {
    for (const name of readdirSync(storeDir)) if (!storedBaseline.has(join(storeDir, name))) rmSync(join(storeDir, name));
    for (const [path, bytes] of storedBaseline) writeFileSync(path, bytes);
  };
  const before = await takeSnapshot(host, options);
  const shippedBefore = await takeSnapshot(shipped, options);
  if (shippedBefore.indexChecksum === undefined) throw new Error('no index checksum was read');

  // The turn: 50 changed files spread over the tree.
  // File i lives in src/mod<i % 100>/sub<⌊i / 100⌋ % 100>/: 101·n is in mod<n>/sub<n>, 101·m + 50 in mod<m + 50>/sub<m>.
  for (let n = 0; n < 20; n += 1) writeFileSync(join(root, `src/mod${n}/sub${n}/file${101 * n}.ts`), `changed ${n}\n`, { flag: 'a' });
  for (let n = 0; n < 20; n += 1) writeFileSync(join(root, `src/mod${n}/new${n}.ts`), `created ${n}\n`);
  for (let n = 0; n < 10; n += 1) rmSync(join(root, `src/mod${50 + n}/sub${n}/file${101 * n + 50}.ts`));
  const expected = (await takeSnapshot(host, options)).workTree.size;
  if (expected !== 50) throw new Error(`the turn should change 50 files, git reports ${expected}`);

  const statusTimes: number[] = [];
  const statusCpu: number[] = [];
  const hookCpu: number[] = [];
  const nodeTimes: number[] = [];
  const nodeCpu: number[] = [];
  const shippedTimes: number[] = [];
  const stagedTimes: number[] = [];
  const plainTimes: number[] = [];
  const simpleTimes: number[] = [];
  const hookTimes: number[] = [];
  const simple = simpleGitHost(root);
  for (let run = 0; run < runs; run += 1) {
    const status = timed('git', ['status', '--porcelain', '--untracked-files=all']);
    statusTimes.push(status.wall);
    statusCpu.push(status.cpu);
    const bare = timed(process.execPath, ['-e', '0']);
    nodeTimes.push(bare.wall);
    nodeCpu.push(bare.cpu);
    if (status.stdout.split('\n').filter((line) => line !== '').length !== 50) throw new Error('git status does not see 50 changes');

    // The three in-process variants take turns at going first, so none always runs on a warmer cache.
    const variants: Array<{ times: number[]; take: () => Promise<SnapshotDiff> }> = [
      { times: shippedTimes, take: async () => diffSnapshots(shippedBefore, await takeSnapshot(shipped, { ...options, previous: shippedBefore }), options) },
      // An index other than the one the earlier snapshot was taken under: what a turn that staged pays.
      {
        times: stagedTimes,
        take: async () => diffSnapshots(shippedBefore, await takeSnapshot(shipped, { ...options, previous: { ...shippedBefore, indexChecksum: 'another index' } }), options),
      },
      { times: plainTimes, take: async () => diffSnapshots(before, await takeSnapshot(host, options), options) },
      { times: simpleTimes, take: async () => diffSnapshots(before, await takeSnapshot(simple, options), options) },
    ];
    for (let offset = 0; offset < variants.length; offset += 1) {
      const variant = variants[(run + offset) % variants.length] as (typeof variants)[number];
      started = performance.now();
      const diff = await variant.take();
      variant.times.push(performance.now() - started);
      const kinds = diff.changes.map((change) => change.kind);
      if (kinds.length !== 50 || kinds.filter((kind) => kind === 'deleted').length !== 10) throw new Error(`the diff found ${kinds.length} changes`);
    }

    restoreBaseline();
    const hook = hookRun();
    hookTimes.push(hook.wall);
    hookCpu.push(hook.cpu);
    const reply = JSON.parse(hook.stdout || '{}') as { decision?: string; reason?: string };
    if (reply.decision !== 'block' || (reply.reason ?? '').split('\n').filter((line) => line.startsWith('- ')).length !== 50) {
      throw new Error(`post-bash did not block on the 50 changes: ${hook.stdout.slice(0, 200)} ${hook.stderr}`);
    }
  }

  const yardstick = median(statusTimes);
  const rows: Array<[string, number[], number | undefined]> = [
    ['git status --porcelain --untracked-files=all', statusTimes, undefined],
    ['snapshot + diff, as run (index listing reused)', shippedTimes, 1.5],
    ['snapshot + diff, after staging (with stat data)', stagedTimes, undefined],
    ['snapshot + diff, fresh listing (child_process)', plainTimes, 1.5],
    ['snapshot + diff, fresh listing (simple-git)', simpleTimes, 1.5],
    ['post-bash (node dist/hook.js, whole process)', hookTimes, 2],
  ];
  console.log(`\n${runs} interleaved runs each, medians, 50 changed files of ${fileCount}:`);
  let failed = false;
  for (const [name, times, target] of rows) {
    const ratio = median(times) / yardstick;
    const verdict = target === undefined ? '' : ratio <= target ? `  (target ≤ ${target}×: met)` : `  (target ≤ ${target}×: MISSED)`;
    if (target !== undefined && ratio > target && !name.includes('fresh')) failed = true;
    console.log(`  ${name.padEnd(48)} ${median(times).toFixed(1).padStart(8)} ms  ${ratio.toFixed(2)}×${verdict}`);
  }
  console.log(`  ${'node -e 0 (for reference)'.padEnd(48)} ${median(nodeTimes).toFixed(1).padStart(8)} ms  ${(median(nodeTimes) / yardstick).toFixed(2)}×`);
  console.log(`  simple-git / child_process (fresh listing): ${(median(simpleTimes) / median(plainTimes)).toFixed(2)}×`);
  if (timer !== undefined) {
    const cpuYardstick = median(statusCpu);
    console.log(`  CPU (user + system) medians: git status ${cpuYardstick.toFixed(0)} ms, post-bash ${median(hookCpu).toFixed(0)} ms (${(median(hookCpu) / cpuYardstick).toFixed(2)}×), node -e 0 ${median(nodeCpu).toFixed(0)} ms`);
  }
  console.log(`  load average during the run: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  console.log(`  index unchanged through the run (listing reused by run and post-bash): ${readIndexChecksum(gitDir) === shippedBefore.indexChecksum ? 'yes' : 'no'}`);
  process.exitCode = failed ? 1 : 0;
}

const benchRoot = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-backstop-bench-')));
main(benchRoot)
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rmSync(benchRoot, { recursive: true, force: true, maxRetries: 5 }));
