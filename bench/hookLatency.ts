// Benchmark of the write gate (issue 5, "Speed"): one hook call as a whole process, with a 500-entry
// manifest in a 100,000-file repository, against `node -e 0` measured in the same run. The hook is
// measured three ways: the lean bundle (`dist/hook.js`), the launcher `install-hooks` writes (what an
// agent CLI actually runs), and the full CLI (`dist/cli.js hook enforce-write`).
//
//   npm run build && node --import tsx bench/hookLatency.ts [--runs N] [--files N] [--compare DIST]
//
// Every measured call is checked for the right answer first, and the hook is also run with an empty
// PATH: it must decide without spawning git (nothing on this path scans the repository). With
// `--compare <dir>` (the dist/ of another build, e.g. the previous commit's), that build's hook bundle
// and launcher are measured in the same interleaved runs, so before and after are side by side.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { git, median, numberFlag, timedRun } from './support';

const dist = join(__dirname, '..', 'dist');
const runs = numberFlag('--runs', 31);
const fileCount = numberFlag('--files', 100_000);
const compareIndex = process.argv.indexOf('--compare');
const compare = compareIndex === -1 ? undefined : process.argv[compareIndex + 1];
const ENTRIES = 500;

const root = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-hook-bench-')));
try {
  let started = performance.now();
  for (let i = 0; i < fileCount; i += 1) {
    const dir = join(root, `src/mod${i % 100}/sub${Math.floor(i / 100) % 100}`);
    if (i < 10_000) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `file${i}.ts`), '');
  }
  git(root, 'init', '--quiet', '--initial-branch=main');
  git(root, 'add', '--all');
  git(root, 'commit', '--quiet', '-m', 'bench files');
  console.log(`repository: ${fileCount} tracked files in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  // 500 entries, half plain paths and half globs; the write below is covered only by the very last one.
  const allowedPaths: string[] = [];
  for (let i = 0; allowedPaths.length < ENTRIES - 1; i += 1) {
    allowedPaths.push(i % 2 === 0 ? `src/mod${i % 100}/sub${i % 97}/file${i}.ts` : `src/mod${i % 100}/gen${i}/**/*.ts`);
  }
  allowedPaths.push('src/mod7/sub3/');
  mkdirSync(join(root, '.claude'), { recursive: true });
  writeFileSync(
    join(root, '.claude/wave-scope.json'),
    JSON.stringify({ version: 1, wave: 1, role: 'implementation', enforcement: 'strict', allowedPaths, blockedCommands: [] }),
  );
  const payload = (target: string) =>
    JSON.stringify({
      session_id: 'bench',
      cwd: root,
      hook_event_name: 'PreToolUse',
      tool_name: 'Edit',
      tool_input: { file_path: join(root, target), old_string: 'a', new_string: 'b' },
    });
  const allowed = payload('src/mod7/sub3/file307.ts');
  const denied = payload('src/mod8/sub3/file308.ts');
  // A dispatched subagent's write: the gate also resolves where every control path of the checkout leads.
  const agentAllowed = JSON.stringify({ ...(JSON.parse(allowed) as object), agent_id: 'bench-agent' });

  started = performance.now();
  const variants: Array<{ name: string; args: string[]; input?: string }> = [{ name: 'node -e 0', args: ['-e', '0'] }];
  if (compare !== undefined) {
    // The other build's launcher, installed by its own CLI, kept beside ours (a launcher finds its repository from its own directory).
    execFileSync(process.execPath, [join(compare, 'cli.js'), 'install-hooks', '--claude'], { cwd: root, stdio: 'ignore' });
    mkdirSync(join(root, '.bench-compare'), { recursive: true });
    renameSync(join(root, '.claude/wave-scope-hook.cjs'), join(root, '.bench-compare/wave-scope-hook.cjs'));
    variants.push(
      { name: 'before: dist/hook.js enforce-write', args: [join(compare, 'hook.js'), 'enforce-write', '--agent-cli', 'claude'], input: allowed },
      { name: 'before: launcher (as installed)', args: [join(root, '.bench-compare/wave-scope-hook.cjs'), 'enforce-write', '--agent-cli', 'claude'], input: allowed },
    );
  }
  execFileSync(process.execPath, [join(dist, 'cli.js'), 'install-hooks', '--claude'], { cwd: root, stdio: 'ignore' });
  const launcher = join(root, '.claude/wave-scope-hook.cjs');
  variants.push(
    { name: 'dist/hook.js enforce-write', args: [join(dist, 'hook.js'), 'enforce-write', '--agent-cli', 'claude'], input: allowed },
    { name: 'launcher (as installed)', args: [launcher, 'enforce-write', '--agent-cli', 'claude'], input: allowed },
    { name: 'launcher, dispatched agent', args: [launcher, 'enforce-write', '--agent-cli', 'claude'], input: agentAllowed },
    { name: 'dist/cli.js hook enforce-write', args: [join(dist, 'cli.js'), 'hook', 'enforce-write'], input: allowed },
  );

  // Correctness first: the measured calls must give the right answers, also with no git on PATH.
  const noGitEnv = { ...process.env, PATH: '/nonexistent' };
  for (const variant of variants.slice(1)) {
    const allow = spawnSync(process.execPath, variant.args, { input: variant.input, encoding: 'utf8', env: noGitEnv });
    const deny = spawnSync(process.execPath, variant.args, { input: variant.input === agentAllowed ? JSON.stringify({ ...(JSON.parse(denied) as object), agent_id: 'bench-agent' }) : denied, encoding: 'utf8', env: noGitEnv });
    if (allow.status !== 0 || allow.stdout !== '') throw new Error(`${variant.name}: expected allow, got ${allow.stdout}${allow.stderr}`);
    if (!deny.stdout.includes('"permissionDecision":"deny"')) throw new Error(`${variant.name}: expected deny, got ${deny.stdout}${deny.stderr}`);
  }
  console.log('answers checked (allow and deny, PATH without git: no process spawned, no repository scan)');

  // CPU time (user + system, from /usr/bin/time) is reported beside wall time: on a loaded machine the
  // wall clock also measures everybody else, the CPU time only what the process itself spent.
  const timer = ['/usr/bin/time', '/bin/time'].find((candidate) => spawnSync(candidate, ['-f', '%U', 'true']).status === 0);
  const wall = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
  const cpu = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
  for (let run = 0; run < runs + 2; run += 1) {
    // Interleaved, so machine noise falls on every variant alike; the first two rounds warm the file cache.
    for (const variant of variants) {
      const command = timer === undefined ? process.execPath : timer;
      const args = timer === undefined ? variant.args : ['-f', 'CPU %U %S', process.execPath, ...variant.args];
      const { wallMs, cpuMs } = timedRun(variant.name, command, args, variant.input ?? '');
      if (run < 2) continue;
      wall.get(variant.name)?.push(wallMs);
      if (cpuMs !== undefined) cpu.get(variant.name)?.push(cpuMs);
    }
  }
  const baseWall = median(wall.get('node -e 0') ?? []);
  // The fastest run of each: on a loaded machine the least disturbed, so the steadiest ratio.
  const baseMin = Math.min(...(wall.get('node -e 0') ?? []));
  const baseCpu = median(cpu.get('node -e 0') ?? []);
  console.log(`\n${runs} runs each, interleaved; manifest ${ENTRIES} entries; repository ${fileCount} files`);
  for (const variant of variants) {
    const w = median(wall.get(variant.name) ?? []);
    const fastest = Math.min(...(wall.get(variant.name) ?? []));
    const c = median(cpu.get(variant.name) ?? []);
    const cpuText = Number.isNaN(c) || timer === undefined ? '' : `   CPU ${c.toFixed(0).padStart(4)} ms (${(c / baseCpu).toFixed(2)}×)`;
    console.log(
      `  ${variant.name.padEnd(38)} wall median ${w.toFixed(1).padStart(7)} ms (${(w / baseWall).toFixed(2)}× node -e 0)   fastest ${fastest.toFixed(1).padStart(6)} ms (${(fastest / baseMin).toFixed(2)}×)${cpuText}`,
    );
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
