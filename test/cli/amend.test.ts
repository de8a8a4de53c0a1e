import assert from 'node:assert/strict';
import { linkSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, runBuiltCli } from '../support/builtCli';
import { plantAt, snapshotTree } from '../support/plantedLinks';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';
import { dispatchPayload, lastEvent, planWave, preDispatch, readLedgerFile, SESSION, scopedPrompt, transcript } from './dispatchHelpers';

describe('wave-scope amend (built CLI, real git repository)', () => {
  let repo: TempGitRepo;
  let transcriptPath: string;
  const env = () => cleanEnv({ CLAUDE_CODE_SESSION_ID: SESSION });
  const amend = (...args: string[]) => runBuiltCli(['amend', ...args], { cwd: repo.root, env: env() });
  const read = (path: string) => readFileSync(join(repo.root, path), 'utf8');

  beforeEach(() => {
    repo = createTempGitRepo({ initialFiles: { 'src/a/x.ts': 'x\n', 'src/b/y.ts': 'y\n', 'docs/a.md': 'a\n', 'lib/l.ts': 'l\n' } });
    planWave(repo, 1, [
      { id: 'alice', files: ['src/a/'] },
      { id: 'bob', files: ['src/b/'] },
      { id: 'coordinator', files: ['README.md'] },
    ], { CLAUDE_CODE_SESSION_ID: SESSION });
    transcriptPath = join(repo.root, '.test-transcript.jsonl');
    transcript.write(transcriptPath, [transcript.dispatch('toolu_a', 'alice')]);
    for (const [description, prompt, id] of [
      ['alice', scopedPrompt(['src/a/'], 'AGENT-ID: alice\n'), 'toolu_a'],
      ['carol', scopedPrompt(['lib/**']), 'toolu_c'],
    ] as const) {
      assert.equal(preDispatch(dispatchPayload({ cwd: repo.root, description, prompt, useId: id, transcriptPath })).stdout, '');
    }
  });
  afterEach(() => repo.remove());

  it('adds the entries through the one safe chain (per-agent file, aggregate, manifest), updates the ledger, records the reason', () => {
    const run = amend('--wave', '1', '--agent', 'alice', '--add', 'docs/a.md', '--reason', 'the guide documents the new flag');
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^amended wave 1: agent "alice" now also owns "docs\/a\.md"; its scope digest is ws1-[0-9a-f]{16}\n$/);
    assert.deepEqual(JSON.parse(read('.claude/filescopes/wave-1/alice.json')), ['src/a/', 'docs/a.md']);
    assert.deepEqual((JSON.parse(read('.claude/filescopes/wave-1.scopes.json')) as Array<{ id: string; files: string[] }>).find((record) => record.id === 'alice')?.files, ['src/a/', 'docs/a.md']);
    assert.ok((JSON.parse(read('.claude/wave-scope.json')) as { allowedPaths: string[] }).allowedPaths.includes('docs/a.md'));
    const record = Object.values(readLedgerFile(repo.root)?.waves ?? {}).flat().find((entry) => entry.id === 'alice');
    assert.deepEqual(record?.files, ['src/a/', 'docs/a.md'], 'later dispatches see the new claim');
    const event = lastEvent(repo.root, 'wave_dispatch.amended');
    assert.deepEqual([event.outcome, event.wave, event.added_count, event.reason], ['applied', 1, 1, 'the guide documents the new flag']);
  });

  it('run without a session of its own, leaves the manifest bound to the session it names', () => {
    const run = runBuiltCli(['amend', '--wave', '1', '--agent', 'alice', '--add', 'docs/a.md', '--reason', 'from a terminal'], { cwd: repo.root, env: cleanEnv() });
    assert.equal(run.status, 0, run.stderr);
    const manifest = JSON.parse(read('.claude/wave-scope.json')) as { session_id?: string; allowedPaths: string[] };
    assert.ok(manifest.allowedPaths.includes('docs/a.md'));
    assert.equal(manifest.session_id, SESSION);
  });

  it('refuses an entry a sibling of the plan owns, naming the sibling and a witness; nothing is written', () => {
    const before = [read('.claude/wave-scope.json'), read('.claude/filescopes/wave-1.scopes.json')];
    const run = amend('--wave', '1', '--agent', 'alice', '--add', 'src/**/*.ts', '--reason', 'needs it');
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^ERROR: wave 1 was not amended: the new entries of agent "alice" are not disjoint:\n/);
    assert.match(run.stderr, /ERROR: "src\/\*\*\/\*\.ts" overlaps "src\/b\/", which the plan gives agent "bob" \(both name "src\/b\/y\.ts"\)/);
    assert.deepEqual([read('.claude/wave-scope.json'), read('.claude/filescopes/wave-1.scopes.json')], before);
    assert.equal(lastEvent(repo.root, 'wave_dispatch.amended').outcome, 'refused-declared');
  });

  it('refuses (exit 1) a per-agent file linked elsewhere, naming it: read as the hooks read it, the wave has no complete declaration; nothing is written', () => {
    const stateDir = join(repo.root, '.claude');
    const outside = join(repo.root, '..', `${repo.root.split('/').pop()}-outside`);
    const restore = plantAt(repo.root, { name: 'bob linked', path: '.claude/filescopes/wave-1/bob.json', kind: 'link' }, outside);
    try {
      const planted = { here: snapshotTree(stateDir), outside: snapshotTree(outside) };
      const run = amend('--wave', '1', '--agent', 'alice', '--add', 'docs/a.md', '--reason', 'the guide');
      assert.equal(run.status, 1, run.stderr);
      assert.match(run.stderr, /^ERROR: wave 1 has no complete declaration to amend: .*\/\.claude\/filescopes\/wave-1\/bob\.json cannot be read: .*bob\.json is a symbolic link/);
      assert.deepEqual({ here: snapshotTree(stateDir), outside: snapshotTree(outside) }, planted, 'nothing was written or removed, here or elsewhere');
      assert.equal(lastEvent(repo.root, 'wave_dispatch.amended').outcome, 'invalid');
    } finally {
      restore();
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('never carries forward a declaration an agent could write through a second name: hard-linked plan files are refused, not baked into the new plan', () => {
    // bob gave the aggregate and his per-agent file a second name each inside his own scope, and widened
    // both through those names (the hooks already refuse such files: every one of bob's writes is denied).
    const widened = [
      { id: 'alice', files: ['src/a/'] },
      { id: 'bob', files: ['src/b/', 'lib/'] },
      { id: 'coordinator', files: ['README.md'] },
    ];
    linkSync(join(repo.root, '.claude/filescopes/wave-1/bob.json'), join(repo.root, 'src/b/mine.json'));
    linkSync(join(repo.root, '.claude/filescopes/wave-1.scopes.json'), join(repo.root, 'src/b/aggregate.json'));
    writeFileSync(join(repo.root, 'src/b/mine.json'), `${JSON.stringify(['src/b/', 'lib/'])}\n`);
    writeFileSync(join(repo.root, 'src/b/aggregate.json'), `${JSON.stringify(widened)}\n`);
    const manifest = read('.claude/wave-scope.json');
    const run = amend('--wave', '1', '--agent', 'alice', '--add', 'docs/a.md', '--reason', 'the guide');
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, /^ERROR: wave 1 has no complete declaration to amend: .*has 2 links/);
    assert.equal(read('.claude/wave-scope.json'), manifest, 'the manifest is not rewritten');
    assert.equal(statSync(join(repo.root, '.claude/filescopes/wave-1/bob.json')).nlink, 2, 'bob\'s file is left for the coordinator to repair');
  });

  it('refuses an entry a sibling still in flight claims, and allows it once the sibling has finished', () => {
    const refused = amend('--wave', '1', '--agent', 'alice', '--add', 'lib/l.ts', '--reason', 'shared helper');
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /"lib\/l\.ts" overlaps "lib\/\*\*", claimed by "carol", which is still in flight \(not found in the session transcript; both name "lib\/l\.ts"\)/);
    assert.equal(lastEvent(repo.root, 'wave_dispatch.amended').outcome, 'refused-in-flight');
    transcript.write(transcriptPath, [transcript.dispatch('toolu_a', 'alice'), transcript.dispatch('toolu_c', 'carol'), transcript.syncResult('toolu_c')]);
    const applied = amend('--wave', '1', '--agent', 'alice', '--add', 'lib/l.ts', '--reason', 'shared helper');
    assert.equal(applied.status, 0, applied.stderr);
  });

  // Found by red-team review, 2026-12-06: a ledger given a second name read as empty, and alice was granted
  // lib/l.ts, which carol, still running, holds.
  it('refuses (exit 1) when a ledger cannot be read as the hooks read it: the agents still running cannot be checked', () => {
    const ledger = join(repo.root, '.orchestrator', `wave-dispatch-scopes.${SESSION}.json`);
    linkSync(ledger, join(repo.root, '.orchestrator', 'second-name.json'));
    const refused = amend('--wave', '1', '--agent', 'alice', '--add', 'lib/l.ts', '--reason', 'shared helper');
    assert.equal(refused.status, 1, refused.stderr);
    assert.match(refused.stderr, /ERROR: the dispatch ledger .*wave-dispatch-scopes\..*\.json cannot be read .*: the agents still running cannot be checked, so nothing is amended/);
    assert.deepEqual(JSON.parse(read('.claude/filescopes/wave-1/alice.json')), ['src/a/'], 'alice was not widened');
  });

  it('--json prints the outcome', () => {
    const run = amend('--wave', '1', '--agent', 'alice', '--add', 'docs/a.md', '--reason', 'r', '--json');
    assert.equal(run.status, 0, run.stderr);
    const document = JSON.parse(run.stdout) as { outcome: string; added: string[]; digest: string };
    assert.deepEqual([document.outcome, document.added], ['applied', ['docs/a.md']]);
  });

  const refusals: Array<[string, string[], RegExp]> = [
    ['no --reason', ['--wave', '1', '--agent', 'alice', '--add', 'docs/a.md'], /--reason is required/],
    ['an empty --reason', ['--wave', '1', '--agent', 'alice', '--add', 'docs/a.md', '--reason', ' '], /--reason must say why/],
    ['no --add', ['--wave', '1', '--agent', 'alice', '--reason', 'r'], /at least one entry/],
    ['an undeclared agent', ['--wave', '1', '--agent', 'zed', '--add', 'docs/a.md', '--reason', 'r'], /not declared in this wave/],
    ['a wave that is not active', ['--wave', '2', '--agent', 'alice', '--add', 'docs/a.md', '--reason', 'r'], /the active wave is 1/],
    ['an entry the grammar refuses', ['--wave', '1', '--agent', 'alice', '--add', '../x', '--reason', 'r'], /climbs out of the repository/],
  ];
  for (const [name, args, pattern] of refusals) {
    it(`exit 1 for ${name}`, () => {
      const run = amend(...args);
      assert.equal(run.status, 1);
      assert.match(run.stderr, pattern);
    });
  }
});
