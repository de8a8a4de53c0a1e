// Benchmark of sync across clones (issue 13, "Speed"): publish and sync of a 64-agent wave against a
// local bare remote, and verify of a range of 100 commits touching 5,000 paths, each beside the git
// operation it wraps, measured in the same run and interleaved (so machine load falls on all alike):
//
//   publish  vs  git fetch + git push of the plan ref (the two network operations it cannot avoid; the fetch
//                brings in another clone's renewed claim, the push carries what a republish changes: two
//                blobs, their trees and the commit)
//   sync     vs  git fetch of the plan ref (bringing in the coordinator's republished plan): a sync that finds
//                the wave already there, and one that writes it into an empty state directory
//            vs  git fetch of an amended plan: a sync that brings in the wave amended in one agent
//   verify   vs  git merge-base + git diff --raw -z -M of the range
//
// Each Wave Scope figure is given twice: in a CLI process (the command's own work, its git processes
// included, run by a process that has loaded dist/cli.js and nothing else: bench/cliHost.cjs, which also
// times the git operations each is set against, so both start their children from a process of the same
// size) and as a whole process (`node dist/cli.js ...`, which adds Node's start, shown as `node -e 0`).
//
// The fixture lives under the temporary directory (TMPDIR). A writing sync creates 66 files, and what a file
// creation costs varies a lot: on the VM these figures come from, creating 66 empty files in a fresh
// directory took from 3 ms to 100 ms, in /tmp or in /var/tmp of the same file system alike, from one hour
// to the next. Two lines measure it in each round beside the rest, so a writing sync's figure can be read
// against what its disk charged at the time: "creating 66 files" (created, written, closed), and "writing
// 66 files durably", the least any writer that keeps them durable pays (created and written, fsynced
// together on libuv's pool, renamed into place, their directory fsynced); the writing sync is also given
// against the git fetch plus that floor.
//
// A sync process starts libuv's pool with SYNC_WRITE_THREADS threads while git fetches (src/node/threadPool.ts),
// so its staged files are fsynced together. The CLI process is started with that pool, and so is this one
// (under tsx the loader starts the pool before any of this file runs, so the benchmark runs itself again
// with UV_THREADPOOL_SIZE set), for the floor below.
//
//   npm run build && node --import tsx bench/syncSpeed.ts [--runs N]
//
// `--syncs-only` times the three syncs and their fetches alone, interleaved (the other rows, run between
// them, leave the disk in states that move a sync by several milliseconds); `--against DIR` (implies it)
// times every sync also with the build in DIR (its dist/cli.js, in a host of its own started without
// UV_THREADPOOL_SIZE, as its CLI would be), alternating which of the two goes first: an A/B of two builds
// in one run. `--verify-only` times verify (by ref names and by commit ids) and the git operations it wraps
// alone, interleaved; with `--against DIR`, verify by each of the two builds instead of the syncs.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, fsync, fsyncSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { SYNC_WRITE_THREADS } from '../src/node/threadPool';

const cli = join(__dirname, '..', 'dist', 'cli.js');
const flag = (name: string, fallback: number) => {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
};
const runs = flag('--runs', 15);
const againstIndex = process.argv.indexOf('--against');
const against = againstIndex === -1 ? undefined : process.argv[againstIndex + 1];
const verifyOnly = process.argv.includes('--verify-only');
const syncsOnly = (against !== undefined && !verifyOnly) || process.argv.includes('--syncs-only');
const AGENTS = 64;
const COMMITS = 100;
const PATHS = 5000;

const identity = { GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'b@example.invalid', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'b@example.invalid' };
const env: NodeJS.ProcessEnv = { ...process.env, ...identity };
for (const key of Object.keys(env)) if (key.startsWith('WAVE_SCOPE_') || key === 'CLAUDE_CODE_SESSION_ID') delete env[key];

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 });
}

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** The rounds' timings by name, the first WARM_UP_ROUNDS rounds left out (they warm the caches); medians of the rest. */
const WARM_UP_ROUNDS = 2;
function roundSamples(): { record(run: number, name: string, value: number): void; median(name: string): number } {
  const samples = new Map<string, number[]>();
  return {
    record(run, name, value) {
      if (run >= WARM_UP_ROUNDS) samples.set(name, [...(samples.get(name) ?? []), value]);
    },
    median: (name) => median(samples.get(name) ?? []),
  };
}

function processRun(cwd: string, command: string, args: string[], input = '', sessionId?: string): void {
  const result = spawnSync(command, args, { cwd, input, env: { ...env, ...(sessionId ? { CLAUDE_CODE_SESSION_ID: sessionId } : {}) }, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
}

/** A process the size of the CLI (bench/cliHost.cjs) that runs and times commands and git operations. */
interface CliHost {
  /** `wave-scope <args>` run in the host, in process; its time. Throws when the command fails. */
  command(cwd: string, args: string[], options?: { sessionId?: string; input?: string }): Promise<number>;
  /** `git <args>` started by the host; its time. Throws when git fails. */
  git(cwd: string, args: string[]): Promise<number>;
  close(): void;
}

/**
 * The host for this build (started with the pool a sync starts, so a command run before the first sync
 * cannot start it narrower), or for another build's dist/cli.js (`bundle`), started as its CLI would be.
 */
function startCliHost(bundle?: string): CliHost {
  const hostEnv: NodeJS.ProcessEnv = { ...env };
  if (bundle === undefined) hostEnv.UV_THREADPOOL_SIZE = String(SYNC_WRITE_THREADS);
  else delete hostEnv.UV_THREADPOOL_SIZE;
  const child = spawn(process.execPath, [join(__dirname, 'cliHost.cjs'), ...(bundle === undefined ? [] : [bundle])], { stdio: ['pipe', 'pipe', 'inherit'], env: hostEnv });
  const waiting: Array<(line: string) => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.(line));
  const ask = (request: object, what: string) =>
    new Promise<number>((done, failed) => {
      waiting.push((line) => {
        const reply = JSON.parse(line) as { ms: number; code: number; stderr: string };
        if (reply.code === 0) done(reply.ms);
        else failed(new Error(`${what} exited ${reply.code}: ${reply.stderr}`));
      });
      child.stdin.write(`${JSON.stringify(request)}\n`);
    });
  return {
    command: (cwd, args, options = {}) =>
      ask({ kind: 'cli', cwd, args, input: options.input, env: { ...env, ...(options.sessionId ? { CLAUDE_CODE_SESSION_ID: options.sessionId } : {}) } }, `wave-scope ${args.join(' ')}`),
    git: (cwd, args) => ask({ kind: 'git', cwd, args, env }, `git ${args.join(' ')}`),
    close: () => child.stdin.end(),
  };
}

/** A wave of 64 agents: each owns its package directory and four plain files elsewhere. */
function waveRecords(prefix: string): Array<{ id: string; files: string[] }> {
  return Array.from({ length: AGENTS }, (_, i) => ({
    id: `${prefix}${i}`,
    files: [`${prefix}/pkg${i}/`, ...[0, 1, 2, 3].map((j) => `shared/${prefix}${i}/file${j}.ts`)],
  }));
}

let dir = '';
async function main(): Promise<void> {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-sync-bench-')));
  const bare = join(dir, 'remote.git');
  git(dir, 'init', '--quiet', '--bare', '--initial-branch=main', bare);
  const seed = join(dir, 'seed');
  git(dir, 'init', '--quiet', '--initial-branch=main', seed);
  const files: Record<string, string> = { '.gitignore': '.claude/\n' };
  for (const prefix of ['a', 'b']) {
    for (let i = 0; i < AGENTS; i += 1) {
      files[`${prefix}/pkg${i}/index.ts`] = 'x\n';
      for (let j = 0; j < 4; j += 1) files[`shared/${prefix}${i}/file${j}.ts`] = 'y\n';
    }
  }
  write(seed, files);
  git(seed, 'add', '--all');
  git(seed, 'commit', '--quiet', '-m', 'seed');
  git(seed, 'push', '--quiet', bare, 'main');
  const clone = (name: string) => {
    const root = join(dir, name);
    git(dir, 'clone', '--quiet', bare, root);
    return root;
  };
  const coordinator = clone('coordinator');
  const rival = clone('rival');
  const follower = clone('follower');
  // A clone where the same wave is written with `plan write`: the safe chain on its own, for reference.
  const writer = clone('writer');

  // The rival clone claims a disjoint 64-agent wave first, so every publish proves 64 agents against 64.
  processRun(rival, process.execPath, [cli, 'plan', 'write', '--wave', '1', '--role', 'implementation'], JSON.stringify(waveRecords('b')), 'rival');
  processRun(rival, process.execPath, [cli, 'publish', '--ttl', '1d'], '', 'rival');
  const aWave = waveRecords('a');
  // Agent a0 also owns bulk/, where the verified range writes.
  aWave[0]?.files.push('bulk/');
  processRun(coordinator, process.execPath, [cli, 'plan', 'write', '--wave', '1', '--role', 'implementation'], JSON.stringify(aWave), 'coord');
  processRun(coordinator, process.execPath, [cli, 'publish', '--ttl', '1d'], '', 'coord');
  processRun(follower, process.execPath, [cli, 'sync', '--clone', cloneId(coordinator), '--wave', '1']);

  // The verified range: 100 commits, 50 new or changed paths each, 5,000 distinct paths in all.
  git(follower, 'checkout', '--quiet', '-b', 'wave-1/a0');
  let written = 0;
  for (let c = 0; c < COMMITS; c += 1) {
    const batch: Record<string, string> = {};
    for (let k = 0; k < PATHS / COMMITS; k += 1, written += 1) batch[`bulk/d${written % 50}/f${written}.ts`] = `${written}\n`;
    write(follower, batch);
    git(follower, 'add', '--all');
    git(follower, 'commit', '--quiet', '-m', `bulk ${c}`);
  }
  const changed = git(follower, 'diff', '--name-only', 'origin/main', 'wave-1/a0').split('\n').filter((line) => line !== '').length;
  if (changed !== PATHS) throw new Error(`the range touches ${changed} paths, not ${PATHS}`);
  const mergeBase = git(follower, 'merge-base', 'origin/main', 'wave-1/a0').trim();
  console.log(`setup: two clones with ${AGENTS}-agent waves published, one follower synced; range of ${COMMITS} commits touching ${changed} paths`);

  // Wall time of one process, waited for.
  const measure = (cwd: string, command: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}): number => {
    const t0 = performance.now();
    const result = spawnSync(command, args, { cwd, env: { ...env, ...extraEnv }, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 30 });
    const elapsed = performance.now() - t0;
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
    return elapsed;
  };
  const tracking = 'refs/wave-scope/remotes/origin/plan';
  const pushArgs = (tip: string, commit: string) => [
    '-c', `remote.origin.fetch=+refs/wave-scope/plan:${tracking}`, 'push', '--porcelain', '--no-verify', '--no-follow-tags', '--recurse-submodules=no', 'origin',
    `--force-with-lease=refs/wave-scope/plan:${tip}`, `${commit}:refs/wave-scope/plan`,
  ];
  // The push publish makes: a new plan commit on top of the tip, compare-and-swap on the tip, carrying what a
  // republish changes (claims.json and the clone's own published.json: two blobs, the five trees above them,
  // the commit). Built with git's plumbing in `root` before the clock starts; the texts stay valid JSON (a
  // trailing space).
  const index = join(dir, 'bench-index');
  const planCommitLikePublish = (root: string, tip: string, round: number): string => {
    const withIndex = { ...env, GIT_INDEX_FILE: index };
    const plumbing = (args: string[], input?: string) => execFileSync('git', args, { cwd: root, env: withIndex, input, encoding: 'utf8' }).trim();
    plumbing(['read-tree', tip]);
    for (const path of ['claims.json', `clones/${cloneId(root)}/waves/1/published.json`]) {
      const blob = plumbing(['hash-object', '-w', '--stdin'], `${plumbing(['cat-file', 'blob', `${tip}:${path}`])}${' '.repeat(round + 1)}\n`);
      plumbing(['update-index', '--cacheinfo', `100644,${blob},${path}`]);
    }
    return plumbing(['commit-tree', plumbing(['write-tree']), '-p', tip, '-m', 'bench push']);
  };
  const host = startCliHost();
  // A push like publish's from `root`, on top of its copy of the tip (as its last fetch or push left it);
  // `timed` in the CLI host, else untimed from here.
  const pushOnce = async (root: string, round: number, timed = true): Promise<number> => {
    const tip = git(root, 'rev-parse', tracking).trim();
    const args = pushArgs(tip, planCommitLikePublish(root, tip, round));
    if (timed) return host.git(root, args);
    git(root, ...args);
    return 0;
  };
  // The former baseline, shown beside it: a commit of the tip's own tree, which carries one object.
  const pushCommitAlone = () => {
    const tip = git(coordinator, 'rev-parse', tracking).trim();
    const commit = git(coordinator, 'commit-tree', `${tip}^{tree}`, '-p', tip, '-m', 'bench push').trim();
    return host.git(coordinator, pushArgs(tip, commit));
  };
  // Before every measured fetch (the baselines', or the one inside a publish or a sync), another clone moves
  // the remote's plan ref on by one commit of publish's shape, untimed: each of those fetches then brings in
  // the same new objects, as it does after another clone's publish, and publish reads a plan commit it did
  // not write. (Without it, a command measured after its baseline would find its own fetch with nothing to
  // bring.) The rival renews its claim before the coordinator's fetches; the coordinator republishes before
  // the follower's. Each measured fetch brings exactly that one commit: the clone has fetched everything
  // before it.
  let advances = 0;
  const advanceTip = async (root: string) => {
    git(root, ...fetchArgs);
    await pushOnce(root, 1000 + (advances += 1), false);
  };
  const fetchArgs = ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--recurse-submodules=no', 'origin', `+refs/wave-scope/plan:${tracking}`];
  const verifyArgs = ['verify', '--base', 'origin/main', '--head', 'wave-1/a0', '--wave', '1', '--agent', 'a0', '--no-fetch'];
  // The same range by commit ids, as the example CI workflow gives it: no ref name to check for ambiguity.
  const verifyByIdArgs = ['verify', '--base', git(follower, 'rev-parse', 'origin/main').trim(), '--head', git(follower, 'rev-parse', 'wave-1/a0').trim(), '--wave', '1', '--agent', 'a0', '--no-fetch'];
  const syncArgs = ['sync', '--clone', cloneId(coordinator), '--wave', '1'];
  const diffArgs = ['-c', 'core.quotePath=false', 'diff', '--raw', '-z', '-M', '--no-abbrev', '--no-relative', '--ignore-submodules=none', mergeBase, 'wave-1/a0'];

  // What any writer of the wave pays on this disk, in a fresh directory of the fixture's file system: 66 new
  // files (the sync's temporary files), created exclusively, written and closed; `durably`, also what no
  // durable writer can do without (their fsyncs run together on libuv's pool, the renames into place, one
  // directory fsync), none of Wave Scope's own work: the floor of a writing sync.
  let creations = 0;
  const writeWaveFiles = async (durably: boolean): Promise<number> => {
    const target = join(dir, `creations-${(creations += 1)}`);
    mkdirSync(target);
    const t0 = performance.now();
    const created: Array<{ path: string; descriptor: number }> = [];
    for (let i = 0; i < AGENTS + 2; i += 1) {
      const path = join(target, `a${i}.json.tmp`);
      const descriptor = openSync(path, 'wx', 0o644);
      writeSync(descriptor, `[\n  "a/pkg${i}/"\n]\n`);
      created.push({ path, descriptor });
    }
    if (durably) {
      await Promise.all(created.map(({ descriptor }) => new Promise<void>((done, failed) => fsync(descriptor, (error) => (error === null ? done() : failed(error))))));
    }
    for (const { path, descriptor } of created) {
      closeSync(descriptor);
      if (durably) renameSync(path, path.slice(0, -'.tmp'.length));
    }
    if (durably) {
      const directory = openSync(target, 'r');
      fsyncSync(directory);
      closeSync(directory);
    }
    const elapsed = performance.now() - t0;
    rmSync(target, { recursive: true, force: true });
    return elapsed;
  };

  // Agent a1 gains one file more than the published wave has, a new one each time: a new wave text, as a
  // coordinator's amended plan.
  let amendments = 0;
  const amendWave = () => {
    amendments += 1;
    const amended = aWave.map((record) => (record.id === 'a1' ? { ...record, files: [...record.files, `shared/a1/amended${amendments}.ts`] } : record));
    processRun(coordinator, process.execPath, [cli, 'plan', 'write', '--wave', '1', '--role', 'implementation'], JSON.stringify(amended), 'coord');
    processRun(coordinator, process.execPath, [cli, 'publish', '--ttl', '1d'], '', 'coord');
  };

  const timeVerifyBaseline = async () => (await host.git(follower, ['merge-base', 'origin/main', 'wave-1/a0'])) + (await host.git(follower, diffArgs));
  if (verifyOnly) {
    await compareVerifies({ host, follower, byNames: verifyArgs, byIds: verifyByIdArgs, baseline: timeVerifyBaseline });
    host.close();
    return;
  }
  if (syncsOnly) {
    await compareSyncs({ host, follower, fetchArgs, syncArgs, advance: () => advanceTip(coordinator), amendWave });
    host.close();
    return;
  }
  const samples = roundSamples();
  for (let run = 0; run < runs + WARM_UP_ROUNDS; run += 1) {
    // Interleaved, so load falls on every variant alike.
    const record = (name: string, value: number) => samples.record(run, name, value);
    await advanceTip(rival);
    record('git fetch + git push', (await host.git(coordinator, fetchArgs)) + (await pushOnce(coordinator, run)));
    await advanceTip(rival);
    record('publish, in a CLI process', await host.command(coordinator, ['publish', '--ttl', '1d'], { sessionId: 'coord' }));
    await advanceTip(rival);
    record('publish, whole process', measure(coordinator, process.execPath, [cli, 'publish', '--ttl', '1d'], { CLAUDE_CODE_SESSION_ID: 'coord' }));
    // The follower first catches up, untimed, with the round's publishes so far: the fetch timed next
    // brings in the one commit the coordinator adds, as each sync's fetch below does.
    git(follower, ...fetchArgs);
    await advanceTip(coordinator);
    record('git fetch', await host.git(follower, fetchArgs));
    // A sync that finds the plan already there writes nothing; one into an empty state directory writes
    // the whole wave (66 files, each fsynced) through the safe chain. Both are measured, each fetching a
    // new tip as the baseline fetch did.
    await advanceTip(coordinator);
    record('sync unchanged, in a CLI process', await host.command(follower, syncArgs));
    await advanceTip(coordinator);
    record('sync unchanged, whole process', measure(follower, process.execPath, [cli, ...syncArgs]));
    await advanceTip(coordinator);
    emptyStateDir(follower);
    record('sync writing, in a CLI process', await host.command(follower, syncArgs));
    await advanceTip(coordinator);
    emptyStateDir(follower);
    record('sync writing, whole process', measure(follower, process.execPath, [cli, ...syncArgs]));
    // The coordinator amends the wave in one agent and republishes it (untimed): the follower's sync fetches
    // that one commit and replaces exactly three files (the agent's, the aggregate, the manifest), adding and
    // removing none. Such a commit brings more than a renewed claim (those three files, of which the aggregate
    // and the manifest are the plan's largest), so the fetch it is set against is one of its own kind: an
    // amendment fetched by plain git first, then another one for the sync.
    amendWave();
    record('git fetch of an amended plan', await host.git(follower, fetchArgs));
    amendWave();
    const before = stateDirFiles(follower);
    record('sync amending, in a CLI process', await host.command(follower, syncArgs));
    const replaced = replacedFiles(before, stateDirFiles(follower));
    if (replaced.join() !== AMENDED_FILES.join()) throw new Error(`the amending sync changed ${replaced.join(', ') || 'nothing'}, not ${AMENDED_FILES.join(', ')}`);
    record('creating 66 files', await writeWaveFiles(false));
    record('writing 66 files durably', await writeWaveFiles(true));
    record('plan write of the same wave, in a CLI process', await host.command(writer, ['plan', 'write', '--wave', '1', '--role', 'implementation'], { input: JSON.stringify(aWave) }));
    record('git merge-base + git diff', await timeVerifyBaseline());
    record('git diff alone', await host.git(follower, diffArgs));
    record('verify, in a CLI process', await host.command(follower, verifyArgs));
    record('verify by commit ids, in a CLI process', await host.command(follower, verifyByIdArgs));
    record('verify, whole process', measure(follower, process.execPath, [cli, ...verifyArgs]));
    record('node -e 0', measure(follower, process.execPath, ['-e', '0']));
    record('git push of a commit alone', await pushCommitAlone());
    record('git push of a plan commit', await pushOnce(coordinator, run + runs + 2));
  }
  host.close();
  // Medians of what was measured, and the one figure made of two of them: the fetch plus the floor.
  const FLOOR = 'git fetch + writing 66 files durably';
  const m = (name: string): number => (name === FLOOR ? m('git fetch') + m('writing 66 files durably') : samples.median(name));
  const node = m('node -e 0');
  const floor = m(FLOOR);
  const rows: Array<[string, string | undefined, string]> = [
    ['git fetch + git push', undefined, 'publish wraps these (fetch of the plan ref after another clone renewed its claim, push with --force-with-lease of a plan commit as publish makes it)'],
    ['git push of a plan commit', undefined, 'the push above alone, measured again at the end of the round'],
    ['git push of a commit alone', undefined, 'for comparison: a push carrying one object (the baseline before 2026-12-02 used this push)'],
    ['publish, in a CLI process', 'git fetch + git push', ''],
    ['publish, whole process', 'git fetch + git push', ''],
    ['git fetch', undefined, 'sync wraps this (each fetch, here and inside sync, brings in a new plan commit)'],
    ['sync unchanged, in a CLI process', 'git fetch', 'the plan is already there: nothing written'],
    ['sync unchanged, whole process', 'git fetch', ''],
    ['sync writing, in a CLI process', 'git fetch', 'into an empty state directory: 66 files through the safe chain'],
    ['sync writing, whole process', 'git fetch', ''],
    ['git fetch of an amended plan', undefined, 'the amending sync wraps this (a plan commit that changes one agent of the wave)'],
    ['sync amending, in a CLI process', 'git fetch of an amended plan', 'the wave republished with one agent changed: 3 of its 66 files replaced, the others found holding their text'],
    ['creating 66 files', undefined, `for reference: creating, writing and closing as many new files in ${dir} (no fsync), part of every writing sync`],
    ['writing 66 files durably', undefined, "for reference: the same, fsynced together on libuv's pool, renamed into place, the directory fsynced (the least a durable writer of the wave pays)"],
    [FLOOR, 'git fetch', 'the least a sync that writes the wave durably can take (its fetch and the floor above, nothing of its own)'],
    ['plan write of the same wave, in a CLI process', undefined, 'the safe chain alone, for reference (each file fsynced)'],
    ['git merge-base + git diff', undefined, `verify wraps these (git diff --raw -z -M alone: ${m('git diff alone').toFixed(1)} ms)`],
    ['verify, in a CLI process', 'git merge-base + git diff', 'by ref names (origin/main, wave-1/a0): the rev-parse that locates the checkout also names the one ref git takes for each'],
    ['verify by commit ids, in a CLI process', 'git merge-base + git diff', 'the same range by commit ids, as the example CI workflow passes them'],
    ['verify, whole process', 'git merge-base + git diff', ''],
    ['node -e 0', undefined, "Node's own start, part of every whole-process figure"],
  ];
  console.log(`\n${runs} runs each, interleaved, wall-clock medians; load average ${readLoad()}`);
  for (const [name, against, note] of rows) {
    const value = m(name);
    let ratio = '';
    if (against !== undefined) {
      ratio = `${(value / m(against)).toFixed(2)}× the git operations`;
      if (name.endsWith('whole process')) ratio += `; beyond Node's start ${(value - node).toFixed(1)} ms, ${((value - node) / m(against)).toFixed(2)}×`;
      if (name === 'sync writing, in a CLI process') ratio += `; ${(value / floor).toFixed(2)}× the git fetch plus writing 66 files durably (${floor.toFixed(1)} ms)`;
    }
    console.log(`  ${name.padEnd(42)} ${value.toFixed(1).padStart(7)} ms   ${[ratio, note].filter((part) => part !== '').join('; ')}`);
  }
}

/**
 * The rounds of an A/B run: `round` once per build in each round, this build's (`host`) and, with
 * `--against`, the other's, alternating which goes first. The other build's host is closed at the end.
 */
async function alternatingRounds(
  host: CliHost,
  round: (record: (name: string, value: number) => void, build: string, builder: CliHost) => Promise<void>,
): Promise<{ builds: Array<[string, CliHost]>; samples: ReturnType<typeof roundSamples> }> {
  const builds: Array<[string, CliHost]> = [['this build', host]];
  if (against !== undefined) builds.push([against, startCliHost(join(against, 'dist', 'cli.js'))]);
  const samples = roundSamples();
  for (let run = 0; run < runs + WARM_UP_ROUNDS; run += 1) {
    const record = (name: string, value: number) => samples.record(run, name, value);
    for (const [build, builder] of run % 2 === 0 ? builds : [...builds].reverse()) await round(record, build, builder);
  }
  for (const [, builder] of builds.slice(1)) builder.close();
  return { builds, samples };
}

/**
 * `--syncs-only` and `--against`: the three syncs and their fetches, nothing else between them; with
 * `--against`, each sync run by this build and by the other, alternating which goes first.
 */
async function compareSyncs(fixture: { host: CliHost; follower: string; fetchArgs: string[]; syncArgs: string[]; advance: () => Promise<void>; amendWave: () => void }): Promise<void> {
  const { host, follower, fetchArgs, syncArgs, advance, amendWave } = fixture;
  const { builds, samples } = await alternatingRounds(host, async (record, build, builder) => {
    git(follower, ...fetchArgs);
    await advance();
    record('git fetch', await host.git(follower, fetchArgs));
    await advance();
    emptyStateDir(follower);
    record(`${build}: sync writing`, await builder.command(follower, syncArgs));
    await advance();
    record(`${build}: sync unchanged`, await builder.command(follower, syncArgs));
    amendWave();
    record('git fetch of an amended plan', await host.git(follower, fetchArgs));
    amendWave();
    record(`${build}: sync amending`, await builder.command(follower, syncArgs));
  });
  const m = (name: string) => samples.median(name);
  console.log(`\n${runs} rounds, syncs only, interleaved, wall-clock medians; load average ${readLoad()}`);
  console.log(`  ${'git fetch'.padEnd(42)} ${m('git fetch').toFixed(1).padStart(7)} ms`);
  console.log(`  ${'git fetch of an amended plan'.padEnd(42)} ${m('git fetch of an amended plan').toFixed(1).padStart(7)} ms`);
  for (const [build] of builds) {
    for (const [kind, baseline] of [['writing', 'git fetch'], ['unchanged', 'git fetch'], ['amending', 'git fetch of an amended plan']] as const) {
      const name = `${build}: sync ${kind}`;
      console.log(`  ${name.padEnd(42)} ${m(name).toFixed(1).padStart(7)} ms   ${(m(name) / m(baseline)).toFixed(2)}× the git operations`);
    }
  }
}

/**
 * `--verify-only`: verify by ref names and by commit ids and the git operations it wraps, nothing else
 * between them; with `--against`, each verify run by this build and by the other, alternating which goes first.
 */
async function compareVerifies(fixture: { host: CliHost; follower: string; byNames: string[]; byIds: string[]; baseline: () => Promise<number> }): Promise<void> {
  const { host, follower, byNames, byIds, baseline } = fixture;
  const { builds, samples } = await alternatingRounds(host, async (record, build, builder) => {
    record('git merge-base + git diff', await baseline());
    record(`${build}: verify by ref names`, await builder.command(follower, byNames));
    record(`${build}: verify by commit ids`, await builder.command(follower, byIds));
  });
  const m = (name: string) => samples.median(name);
  console.log(`\n${runs} rounds, verify only, interleaved, wall-clock medians; load average ${readLoad()}`);
  console.log(`  ${'git merge-base + git diff'.padEnd(42)} ${m('git merge-base + git diff').toFixed(1).padStart(7)} ms`);
  for (const [build] of builds) {
    for (const kind of ['by ref names', 'by commit ids']) {
      const name = `${build}: verify ${kind}`;
      console.log(`  ${name.padEnd(42)} ${m(name).toFixed(1).padStart(7)} ms   ${(m(name) / m('git merge-base + git diff')).toFixed(2)}× the git operations`);
    }
  }
}

/**
 * Removes the clone's state directory and makes the removal durable before the clock starts: on a journalling
 * file system the next fsync would otherwise also commit the removal of the 66 files, and the sync measured
 * after it would pay for the benchmark's own clean-up.
 */
function emptyStateDir(root: string): void {
  rmSync(join(root, '.claude'), { recursive: true, force: true });
  const descriptor = openSync(root, 'r');
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

/** The state directory's files a sync replaces when agent a1's scope changes, relative to the checkout. */
const AMENDED_FILES = ['.claude/filescopes/wave-1.scopes.json', '.claude/filescopes/wave-1/a1.json', '.claude/wave-scope.json'];

/** Each file under the clone's state directory (relative to the checkout) with its inode: a file replaced by rename gets a new one. */
function stateDirFiles(root: string): Map<string, number> {
  const files = new Map<string, number>();
  for (const entry of readdirSync(join(root, '.claude'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(root, path), statSync(path).ino);
  }
  return files;
}

/** The files replaced, added or removed between the two listings, sorted. */
function replacedFiles(before: Map<string, number>, after: Map<string, number>): string[] {
  const changed = [...after].filter(([path, inode]) => before.get(path) !== inode).map(([path]) => path);
  const removed = [...before.keys()].filter((path) => !after.has(path));
  return [...changed, ...removed].sort();
}

function cloneId(root: string): string {
  return JSON.parse(readFileSync(join(root, '.git', 'wave-scope', 'clone.json'), 'utf8')).id;
}

function readLoad(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}

if (process.env.UV_THREADPOOL_SIZE === undefined) {
  const again = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit', env: { ...process.env, UV_THREADPOOL_SIZE: String(SYNC_WRITE_THREADS) } });
  process.exitCode = again.status ?? 1;
} else {
  main()
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    })
    .finally(() => {
      if (dir !== '') rmSync(dir, { recursive: true, force: true });
    });
}
