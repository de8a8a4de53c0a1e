import assert from 'node:assert/strict';
import { compileScopeEntry, normalizeScopeEntry } from '../../../src/planner/scope/scopeEntry';
import { compileGrants, decideWrite, literalEntriesOverlap } from '../../../src/planner/enforce/writeDecision';
import { expandTestSiblings } from '../../../src/planner/scope/testSiblings';
import type { WaveRival } from '../../../src/planner/scope/testSiblings';
import type { AgentScopeState, EnforcedManifest, ManifestState, WriteDecisionInput } from '../../../src/planner/enforce/writeDecision';
import type { ResolvedWriteTarget } from '../../../src/planner/enforce/writeTarget';

const ROOT = '/work/repo';

function inside(relative: string): ResolvedWriteTarget {
  return { kind: 'inside', raw: relative, absolute: `${ROOT}/${relative}`, relative };
}
function outside(absolute: string): ResolvedWriteTarget {
  return { kind: 'outside', raw: absolute, absolute };
}
const nulTarget: ResolvedWriteTarget = { kind: 'invalid', raw: 'a\0b', problem: 'nul' };

function loaded(fields: Partial<EnforcedManifest> = {}, session: 'own' | 'foreign' | 'unknown' = 'unknown'): ManifestState {
  return {
    kind: 'loaded',
    path: `${ROOT}/.claude/wave-scope.json`,
    manifest: { wave: 2, role: 'implementation', enforcement: 'strict', allowedPaths: ['src/', 'docs/*.md', 'package.json'], ...fields },
    session,
  };
}

function input(overrides: Partial<WriteDecisionInput>): WriteDecisionInput {
  return {
    targets: [inside('src/a.ts')],
    manifest: loaded(),
    dispatchedAgent: false,
    controlPaths: [`${ROOT}/.claude/wave-scope.json`, `${ROOT}/.claude/filescopes`],
    writeRoot: ROOT,
    ...overrides,
  };
}

const alice: AgentScopeState = { kind: 'loaded', agent: 'alice', path: `${ROOT}/.claude/filescopes/wave-2/alice.json`, entries: ['src/alice/', '/home/u/.claude/projects/-work-repo/memory/'] };

describe('decideWrite (pure)', () => {
  const table: Array<{ name: string; input: Partial<WriteDecisionInput>; expected: string; kinds?: string[] }> = [
    { name: 'no manifest: no wave is active', input: { manifest: { kind: 'missing' }, targets: [inside('anything')] }, expected: 'allow' },
    { name: 'no manifest even for a control path', input: { manifest: { kind: 'missing' }, targets: [inside('.claude/wave-scope.json')], dispatchedAgent: true }, expected: 'allow' },
    { name: 'invalid manifest', input: { manifest: { kind: 'invalid', path: 'm', problems: ['x'] } }, expected: 'deny-invalid-manifest' },
    { name: 'foreign manifest', input: { manifest: loaded({}, 'foreign'), targets: [inside('elsewhere.ts')] }, expected: 'allow' },
    { name: 'covered by a directory entry', input: {}, expected: 'allow' },
    { name: 'covered by a glob', input: { targets: [inside('docs/guide.md')] }, expected: 'allow' },
    { name: 'a slash-less glob segment stays in its directory', input: { targets: [inside('docs/deep/guide.md')] }, expected: 'deny', kinds: ['outside-scope'] },
    { name: 'covered by a plain file entry', input: { targets: [inside('package.json')] }, expected: 'allow' },
    { name: 'a sibling with a common prefix is not covered', input: { targets: [inside('src-old/a.ts')] }, expected: 'deny', kinds: ['outside-scope'] },
    { name: 'one target out of two is enough to deny', input: { targets: [inside('src/a.ts'), inside('lib/b.ts')] }, expected: 'deny', kinds: ['outside-scope'] },
    { name: 'warn turns an out-of-scope write into a warning', input: { manifest: loaded({ enforcement: 'warn' }), targets: [inside('lib/b.ts')] }, expected: 'warn' },
    { name: 'off allows an out-of-scope write', input: { manifest: loaded({ enforcement: 'off' }), targets: [inside('lib/b.ts')] }, expected: 'allow' },
    { name: 'an empty allowedPaths denies everything (discovery)', input: { manifest: loaded({ allowedPaths: [], role: 'discovery' }) }, expected: 'deny' },
    { name: 'an invalid path is denied even under warn', input: { manifest: loaded({ enforcement: 'warn' }), targets: [nulTarget] }, expected: 'deny', kinds: ['invalid-path'] },
    { name: 'an invalid path is denied even under off', input: { manifest: loaded({ enforcement: 'off' }), targets: [nulTarget] }, expected: 'deny', kinds: ['invalid-path'] },
    { name: 'outside the write root without a grant', input: { targets: [outside('/etc/passwd')] }, expected: 'deny', kinds: ['outside-root'] },
    {
      name: 'the coordinator may write control files',
      input: { manifest: loaded({ allowedPaths: ['.claude/'] }), targets: [inside('.claude/wave-scope.json')], dispatchedAgent: false },
      expected: 'allow',
    },
    {
      name: 'the coordinator may write the wave\'s declarations even though allowedPaths never lists them',
      input: { targets: [inside('.claude/filescopes/wave-3/alice.json')], coordinatorPaths: [`${ROOT}/.claude/wave-scope.json`, `${ROOT}/.claude/filescopes`] },
      expected: 'allow',
    },
    {
      name: 'a dispatched agent does not get that carve-out',
      input: { targets: [inside('.claude/filescopes/wave-3/alice.json')], coordinatorPaths: [`${ROOT}/.claude/filescopes`], dispatchedAgent: true },
      expected: 'deny',
      kinds: ['control-file'],
    },
    {
      name: 'a dispatched agent may not, even when granted and under warn',
      input: { manifest: loaded({ allowedPaths: ['.claude/'], enforcement: 'warn' }), targets: [inside('.claude/filescopes/wave-2/alice.json')], dispatchedAgent: true },
      expected: 'deny',
      kinds: ['control-file'],
    },
    {
      name: 'a dispatched agent may not, even under off',
      input: { manifest: loaded({ enforcement: 'off' }), targets: [inside('.claude/wave-scope.json')], dispatchedAgent: true },
      expected: 'deny',
      kinds: ['control-file'],
    },
    { name: 'per-agent: own file', input: { agentScope: alice, targets: [inside('src/alice/x.ts')] }, expected: 'allow' },
    { name: 'per-agent: a union file of another agent', input: { agentScope: alice, targets: [inside('src/bob/x.ts')] }, expected: 'deny', kinds: ['outside-scope'] },
    {
      name: 'per-agent: an absolute grant outside the checkout',
      input: { agentScope: alice, targets: [outside('/home/u/.claude/projects/-work-repo/memory/MEMORY.md')] },
      expected: 'allow',
    },
    {
      name: 'per-agent: an adjacent-prefix sibling of the absolute grant',
      input: { agentScope: alice, targets: [outside('/home/u/.claude/projects/-work-repo/memory-evil/x.md')] },
      expected: 'deny',
      kinds: ['outside-root'],
    },
    {
      name: 'per-agent: an unusable scope file denies (no scope, no write)',
      input: { agentScope: { kind: 'unusable', agent: 'bob', path: 'p', problem: 'does not exist' }, targets: [inside('src/bob/x.ts')] },
      expected: 'deny',
      kinds: ['no-agent-scope'],
    },
    {
      name: 'per-agent: test siblings supplied by the caller are honoured',
      input: { manifest: loaded({ allowedPaths: ['src/', 'test/'] }), agentScope: alice, targets: [inside('test/alice/x.test.ts')], expandEntries: (entries) => [...entries, 'test/alice/'] },
      expected: 'allow',
    },
    {
      name: 'per-agent: an agent scope the wave\'s allowedPaths does not back grants nothing, even under warn',
      input: { manifest: loaded({ enforcement: 'warn', allowedPaths: ['lib/'] }), agentScope: alice, targets: [inside('src/alice/x.ts')] },
      expected: 'deny',
      kinds: ['agent-scope-unbacked'],
    },
    {
      name: 'per-agent: no usable scope is a deny under warn too (no scope, no write)',
      input: { manifest: loaded({ enforcement: 'warn' }), agentScope: { kind: 'unusable', agent: 'bob', path: 'p', problem: 'does not exist' }, targets: [inside('src/bob/x.ts')] },
      expected: 'deny',
      kinds: ['no-agent-scope'],
    },
    {
      name: 'a dispatched agent may not write a .git at any depth, whatever its scope',
      input: { manifest: loaded({ allowedPaths: ['src/'] }), targets: [inside('src/a/.git/HEAD')], dispatchedAgent: true },
      expected: 'deny',
      kinds: ['control-file'],
    },
    {
      name: 'a dispatched agent may not plant a manifest or hook settings at any depth',
      input: { manifest: loaded({ allowedPaths: ['src/'] }), targets: [inside('src/a/.codex/wave-scope.json'), inside('src/a/.claude/settings.json')], dispatchedAgent: true },
      expected: 'deny',
      kinds: ['control-file', 'control-file'],
    },
    {
      name: 'files that change what agents run or are told are control state',
      input: { manifest: loaded({ allowedPaths: ['src/', '.claude/agents/', 'AGENTS.md'] }), targets: [inside('.claude/agents/x.md'), inside('AGENTS.md'), inside('.mcp.json')], dispatchedAgent: true },
      expected: 'deny',
      kinds: ['control-file', 'control-file', 'control-file'],
    },
    {
      name: 'a spelling that names control state is refused though its destination is in scope',
      input: { targets: [inside('src/a.ts'), ({ ...inside('.claude/settings.local.json'), role: 'spelled' }) as ResolvedWriteTarget], dispatchedAgent: true },
      expected: 'deny',
      kinds: ['control-file'],
    },
    {
      name: 'a spelling alone is never checked against the scope',
      input: { targets: [inside('src/a.ts'), ({ ...inside('lib/elsewhere.ts'), role: 'spelled' }) as ResolvedWriteTarget] },
      expected: 'allow',
    },
    {
      name: 'a destination among the control paths (where a link really leads) is refused',
      input: { targets: [inside('src/cfg.json')], controlPaths: [`${ROOT}/src/cfg.json`], dispatchedAgent: true },
      expected: 'deny',
      kinds: ['control-file'],
    },
    { name: 'a malformed grant grants nothing', input: { manifest: loaded({ allowedPaths: ['!src/', 'src/**/[[:alpha:]]'] }) }, expected: 'deny' },
  ];

  for (const { name, input: overrides, expected, kinds } of table) {
    it(`${name}: ${expected}`, () => {
      const decision = decideWrite(input(overrides));
      assert.equal(decision.decision, expected, JSON.stringify(decision));
      if (kinds !== undefined && (decision.decision === 'deny' || decision.decision === 'warn')) {
        assert.deepEqual(decision.violations.map((violation) => violation.kind), kinds);
      }
    });
  }

  describe('test siblings against the wave\'s other agents', () => {
    // The wave's real rule: the role's sibling spellings (src/planner/scope/testSiblings.ts), as the gate binds it.
    const expandEntries: WriteDecisionInput['expandEntries'] = (entries, namedLike) => expandTestSiblings(entries, { role: 'implementation', ...(namedLike !== undefined ? { namedLike } : {}) });
    const wave = loaded({ allowedPaths: ['src/', 'test/', 'lib/'] });
    const carol = (rivals: readonly WaveRival[], entries = ['src/a/x.ts']): AgentScopeState => ({
      kind: 'loaded',
      agent: 'carol',
      path: `${ROOT}/.claude/filescopes/wave-2/carol.json`,
      entries,
      rivals,
    });
    const decide = (path: string, rivals: readonly WaveRival[]) => decideWrite(input({ manifest: wave, agentScope: carol(rivals), targets: [inside(path)], expandEntries }));

    it('a sibling no other agent claims is the agent\'s', () => {
      for (const path of ['src/a/x.test.ts', 'test/deep/x.test.ts']) assert.equal(decide(path, [{ agent: 'dave', entries: ['lib/'] }]).decision, 'allow', path);
    });
    it('a sibling inside another agent\'s declared directory is that agent\'s, not the sibling owner\'s', () => {
      const decision = decide('test/deep/x.test.ts', [{ agent: 'dave', entries: ['test/'] }]);
      assert.equal(decision.decision, 'deny');
      assert.deepEqual(decision.decision === 'deny' && decision.violations, [{ kind: 'outside-scope', raw: 'test/deep/x.test.ts', shown: 'test/deep/x.test.ts', contestedBy: 'dave' }]);
      // The plain sibling next to the file stays the agent's: dave's test/ does not reach it.
      assert.equal(decide('src/a/x.test.ts', [{ agent: 'dave', entries: ['test/'] }]).decision, 'allow');
    });
    it('a path two agents would both get as a sibling belongs to neither', () => {
      const rivals = [{ agent: 'erin', entries: ['src/b/x.ts'] }];
      const decision = decide('test/x.test.ts', rivals);
      assert.equal(decision.decision === 'deny' && decision.violations[0]?.contestedBy, 'erin');
      // Each keeps the siblings only it has.
      assert.equal(decide('src/a/x.test.ts', rivals).decision, 'allow');
    });
    it('what the agent declares is never taken away by a rival\'s sibling', () => {
      const declaring = carol([{ agent: 'erin', entries: ['src/b/x.ts'] }], ['src/a/x.ts', 'test/unit/x.test.ts']);
      assert.equal(decideWrite(input({ manifest: wave, agentScope: declaring, targets: [inside('test/unit/x.test.ts')], expandEntries })).decision, 'allow');
    });
    it('a rival\'s file itself is outside, with no rival named (it is simply not the agent\'s)', () => {
      const decision = decide('lib/y.ts', [{ agent: 'dave', entries: ['lib/'] }]);
      assert.deepEqual(decision.decision === 'deny' && decision.violations, [{ kind: 'outside-scope', raw: 'lib/y.ts', shown: 'lib/y.ts' }]);
    });
    it('under warn a contested sibling is a warning, as any write outside the scope', () => {
      const decision = decideWrite(input({ manifest: loaded({ allowedPaths: ['src/', 'test/'], enforcement: 'warn' }), agentScope: carol([{ agent: 'dave', entries: ['test/'] }]), targets: [inside('test/x.test.ts')], expandEntries }));
      assert.equal(decision.decision, 'warn');
    });
    it('a rival\'s sibling is found by its name as the file system compares it', () => {
      const rivals = [{ agent: 'erin', entries: ['src/b/X.ts', 'src/c/other.ts'] }];
      const decideFolded = (path: string) => decideWrite(input({ manifest: wave, agentScope: carol(rivals), targets: [inside(path)], expandEntries, ignoreCase: true }));
      const folded = decideFolded('test/x.test.ts');
      assert.equal(folded.decision === 'deny' && folded.violations[0]?.contestedBy, 'erin');
      // Told apart by case, erin's X.test.ts is not carol's x.test.ts.
      assert.equal(decide('test/x.test.ts', rivals).decision, 'allow');
      // A rival's file named by the Kelvin sign has, under NFC, the sibling K.test.ts.
      const kelvin = decideWrite(input({ manifest: wave, agentScope: carol([{ agent: 'erin', entries: ['src/b/\u212A.ts'] }], ['src/a/K.ts']), targets: [inside('test/K.test.ts')], expandEntries }));
      assert.equal(kelvin.decision === 'deny' && kelvin.violations[0]?.contestedBy, 'erin');
    });
    it('a dispatch claim no rival contests gets its siblings (the gate gives it the wave\'s agents and dispatches as rivals)', () => {
      const claim: AgentScopeState = { kind: 'loaded', agent: 'carol', path: `${ROOT}/.orchestrator`, entries: ['src/a/x.ts'], origin: 'dispatch' };
      assert.equal(decideWrite(input({ manifest: wave, agentScope: claim, targets: [inside('test/x.test.ts')], expandEntries })).decision, 'allow');
    });
  });

  it('literalEntriesOverlap finds only overlaps the spelling proves: the same path, or a directory holding the other', () => {
    const cases: Array<[string, string, boolean]> = [
      ['src/a/x.ts', 'src/a/x.ts', true],
      ['src/a/', 'src/a/x.ts', true],
      ['src/a/x.ts', 'src/', true],
      ['src/a', 'src/ab.ts', false],
      ['src/a/', 'src/ab/x.ts', false],
      ['src/*/x.ts', 'src/a/x.ts', false],
      ['src/a/../b/', 'src/a/../b/x.ts', false],
      ['./src/', './src/x.ts', false],
    ];
    for (const [a, b, overlap] of cases) assert.equal(literalEntriesOverlap(a, b), overlap, `${a} / ${b}`);
  });

  it('a deny carries what the reason needs: the wave, the manifest and the entries checked against', () => {
    const decision = decideWrite(input({ targets: [inside('lib/b.ts')] }));
    assert.equal(decision.decision, 'deny');
    if (decision.decision !== 'deny') return;
    assert.equal(decision.wave, 2);
    assert.equal(decision.manifestPath, `${ROOT}/.claude/wave-scope.json`);
    assert.deepEqual(decision.allowed, ['src/', 'docs/*.md', 'package.json']);
    assert.equal(decision.against, 'manifest');
    assert.deepEqual(decision.violations, [{ kind: 'outside-scope', raw: 'lib/b.ts', shown: 'lib/b.ts' }]);
  });

  it('case-insensitive repositories match case variants; case-sensitive ones do not', () => {
    assert.equal(decideWrite(input({ targets: [inside('SRC/A.ts')] })).decision, 'deny');
    assert.equal(decideWrite(input({ targets: [inside('SRC/A.ts')], ignoreCase: true })).decision, 'allow');
  });

  it('the literal prefilter never hides a match of the scope engine (a table of entries and paths)', () => {
    const entries = [
      'src/', 'src/a.ts', 'src', 'docs/*.md', 'docs/**', '*.md', 'src/{a,b}.ts', 'lib/[ab]*.ts', 'caf\u00e9/', 'src/a b.ts', 'x-y_z.v2/', './src/a.ts', 'src//a.ts', 'lib/../src/a.ts',
      // A literal last segment after a glob (the test siblings' shape), and spellings around it.
      'test/**/a.test.ts', '**/a.ts', '**/A.ts', '{src,lib}/a.ts', 'src/{a,b}/..', 'src/a.ts/.', 'src/*/a.ts', 'test/**/caf\u00e9.test.ts', 'src/**/..',
    ];
    const paths = [
      'src/a.ts', 'src/b.ts', 'src', 'src/sub/a.ts', 'docs/a.md', 'docs/x/a.md', 'a.md', 'x/a.md', 'lib/a1.ts', 'lib/c.ts', 'caf\u00e9/x', 'src/a b.ts', 'x-y_z.v2/k', 'SRC/a.ts', 'src-old/a.ts',
      'test/a.test.ts', 'test/x/a.test.ts', 'test/x/A.TEST.ts', 'a.ts', 'A.ts', 'lib/a.ts', 'test/xa.test.ts', 'src/a.ts/b', 'src/x/a.ts', 'test/caf\u00e9.test.ts', 'src/a/b.ts',
    ];
    for (const ignoreCase of [false, true]) {
      for (const entry of entries) {
        const engine = compileScopeEntry(normalizeScopeEntry(entry, { repoRoot: ROOT, ignoreCase }), { ignoreCase });
        const grants = compileGrants([entry], { writeRoot: ROOT, ignoreCase });
        for (const path of paths) {
          assert.equal(grants.covers(inside(path)), engine.matches(path), `${entry} vs ${path} (ignoreCase ${ignoreCase})`);
        }
      }
    }
  });
});
