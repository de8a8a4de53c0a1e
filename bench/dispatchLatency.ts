// Benchmark of the dispatch guard (issue 11, "Speed"): one `hook pre-dispatch` call with no collision,
// on a session ledger of 50 agents and a declared wave of 51, as a whole process, against `node -e 0`
// measured in the same run. Target: median at most 1.5× `node -e 0`. Measured the ways it can run: the
// launcher `install-hooks` writes (dist/hook.js, which loads dist/dispatch.js), dist/hook.js directly,
// dist/dispatch.js directly (skipping the write gate's bundle), and the full CLI.
//
//   npm run build && node --import tsx bench/dispatchLatency.ts [--runs N]
//
// Before each measured call the ledger is put back to its 50 records (untimed), so every call makes the
// same decision ("clear": allowed, recorded as the 51st); the first call of each kind is checked for it.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emptyLedger, formatLedger, promptDigest, updateLedger, waveKeyOf } from '../src/planner/dispatch/sessionLedger';
import type { LedgerRecord } from '../src/planner/dispatch/sessionLedger';
import { scopeDigest, scopeEchoInstruction } from '../src/planner/scope/scopeDigest';
import { cleanEnv, git, median, numberFlag, timedRun } from './support';

const dist = join(__dirname, '..', 'dist');
const runs = numberFlag('--runs', 31);
const AGENTS = 50;
const SESSION = 'bench-session';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-dispatch-bench-')));
try {
  // A repository with 51 agents' directories, a wave declaring all of them (the one safe chain).
  const scopeOf = (agent: number) => [`pkg${agent}/src/`, `pkg${agent}/test/**/*.test.ts`, `docs/pkg${agent}.md`];
  for (let agent = 0; agent <= AGENTS; agent += 1) {
    mkdirSync(join(root, `pkg${agent}/src`), { recursive: true });
    writeFileSync(join(root, `pkg${agent}/src/index.ts`), '');
  }
  git(root, 'init', '--quiet', '--initial-branch=main');
  git(root, 'add', '--all');
  git(root, 'commit', '--quiet', '-m', 'bench files');
  const records = Array.from({ length: AGENTS + 1 }, (_, agent) => ({ id: `agent${agent}`, files: scopeOf(agent) }));
  execFileSync(process.execPath, [join(dist, 'cli.js'), 'plan', 'write', '--wave', '3', '--role', 'implementation'], { cwd: root, input: JSON.stringify(records), env: cleanEnv, stdio: ['pipe', 'ignore', 'inherit'] });
  execFileSync(process.execPath, [join(dist, 'cli.js'), 'install-hooks', '--claude'], { cwd: root, env: cleanEnv, stdio: 'ignore' });
  const launcher = join(root, '.claude/wave-scope-hook.cjs');

  // The ledger of the 50 agents already dispatched.
  const now = new Date().toISOString();
  const waveKey = waveKeyOf(SESSION, 3, 'implementation');
  const promptFor = (agent: number) =>
    `You are agent${agent}.\nAGENT-ID: agent${agent}\nFILE-SCOPE — exactly these:\n\`\`\`\n${scopeOf(agent).join('\n')}\n\`\`\`\n${scopeEchoInstruction(scopeDigest(scopeOf(agent)))}\n`;
  const dispatched: LedgerRecord[] = Array.from({ length: AGENTS }, (_, agent) => ({
    id: `agent${agent}`,
    desc: `agent${agent}`,
    useId: `toolu_${agent}`,
    files: scopeOf(agent),
    at: now,
    agent: `agent${agent}`,
    type: 'general-purpose',
    mode: 'sync',
    prompt: promptDigest(promptFor(agent)),
  }));
  const ledgerText = formatLedger(updateLedger(emptyLedger(SESSION, waveKey, now), { waveKey, now, add: dispatched, transcriptPath: join(root, 'session.jsonl') }));
  const ledgerFile = join(root, `.orchestrator/wave-dispatch-scopes.${SESSION}.json`);
  mkdirSync(join(root, '.orchestrator'), { recursive: true });
  const restore = () => writeFileSync(ledgerFile, ledgerText);
  const pristine = join(root, 'ledger.pristine.json');
  writeFileSync(pristine, ledgerText);

  let call = 0;
  const payload = () =>
    JSON.stringify({
      session_id: SESSION,
      transcript_path: join(root, 'session.jsonl'),
      cwd: root,
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      tool_name: 'Agent',
      tool_use_id: `toolu_new_${(call += 1)}`,
      tool_input: { description: `agent${AGENTS}`, prompt: promptFor(AGENTS), subagent_type: 'general-purpose' },
    });

  const variants: Array<{ name: string; args: string[]; hook: boolean }> = [
    { name: 'node -e 0', args: ['-e', '0'], hook: false },
    { name: 'launcher pre-dispatch (as installed)', args: [launcher, 'pre-dispatch', '--agent-cli', 'claude'], hook: true },
    { name: 'dist/hook.js pre-dispatch', args: [join(dist, 'hook.js'), 'pre-dispatch'], hook: true },
    { name: 'dist/dispatch.js pre-dispatch (direct)', args: [join(dist, 'dispatch.js'), 'pre-dispatch'], hook: true },
    { name: 'dist/cli.js hook pre-dispatch', args: [join(dist, 'cli.js'), 'hook', 'pre-dispatch'], hook: true },
  ];

  // Correctness first: each variant allows, records the 51st agent, and logs row "clear".
  for (const variant of variants.filter((candidate) => candidate.hook)) {
    copyFileSync(pristine, ledgerFile);
    const result = spawnSync(process.execPath, variant.args, { input: payload(), encoding: 'utf8', env: cleanEnv });
    if (result.status !== 0 || result.stdout !== '') throw new Error(`${variant.name}: expected a silent allow, got ${result.stdout}${result.stderr}`);
    const ledger = JSON.parse(readFileSync(ledgerFile, 'utf8')) as { waves: Record<string, unknown[]> };
    const count = Object.values(ledger.waves).flat().length;
    if (count !== AGENTS + 1) throw new Error(`${variant.name}: the ledger holds ${count} records, expected ${AGENTS + 1}`);
    const events = readFileSync(join(root, '.orchestrator/metrics/events.jsonl'), 'utf8').trim().split('\n');
    const last = JSON.parse(events[events.length - 1] as string) as { row: string; declared_agent: string };
    if (last.row !== 'clear' || last.declared_agent !== 'matched') throw new Error(`${variant.name}: expected row clear with a declared agent, got ${JSON.stringify(last)}`);
  }
  console.log(`answers checked: allow, ${AGENTS + 1} records, row "clear", declared agent matched (wave of ${AGENTS + 1} agents)`);

  // CPU time (user + system) beside wall time: on a loaded machine the wall clock also measures everybody
  // else. bash's `time` reads the child's rusage to the millisecond (/usr/bin/time rounds to 10 ms).
  const bash = ['/bin/bash', '/usr/bin/bash'].find((candidate) => spawnSync(candidate, ['-c', 'true']).status === 0);
  const wall = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
  const cpu = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
  for (let run = 0; run < runs + 2; run += 1) {
    for (const variant of variants) {
      if (variant.hook) restore();
      const input = variant.hook ? payload() : '';
      const command = bash === undefined ? process.execPath : bash;
      const quoted = [process.execPath, ...variant.args].map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ');
      const args = bash === undefined ? variant.args : ['-c', `TIMEFORMAT='CPU %3U %3S'; time ${quoted} 2>/dev/null`];
      const { wallMs, cpuMs } = timedRun(variant.name, command, args, input, cleanEnv);
      if (run < 2) continue;
      wall.get(variant.name)?.push(wallMs);
      if (cpuMs !== undefined) cpu.get(variant.name)?.push(cpuMs);
    }
  }
  const baseWall = median(wall.get('node -e 0') ?? []);
  const baseCpu = median(cpu.get('node -e 0') ?? []);
  console.log(`\n${runs} runs each, interleaved; ledger ${AGENTS} agents; wave ${AGENTS + 1} declared agents; no collision`);
  for (const variant of variants) {
    const w = median(wall.get(variant.name) ?? []);
    const c = median(cpu.get(variant.name) ?? []);
    const cpuText = Number.isNaN(c) || bash === undefined ? '' : `   CPU ${c.toFixed(0).padStart(4)} ms (${(c / baseCpu).toFixed(2)}×)`;
    console.log(`  ${variant.name.padEnd(38)} wall median ${w.toFixed(1).padStart(7)} ms (${(w / baseWall).toFixed(2)}× node -e 0)${cpuText}`);
  }
  for (const name of ['launcher pre-dispatch (as installed)', 'dist/dispatch.js pre-dispatch (direct)']) {
    const ratio = median(wall.get(name) ?? []) / baseWall;
    const cpuRatio = median(cpu.get(name) ?? []) / baseCpu;
    console.log(`target ≤ 1.5× node -e 0, ${name}: wall ${ratio.toFixed(2)}× ${ratio <= 1.5 ? 'met' : 'NOT met'}, CPU ${cpuRatio.toFixed(2)}×`);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
