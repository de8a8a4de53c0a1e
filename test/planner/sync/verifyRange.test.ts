import assert from 'node:assert/strict';
import { agentForBranch, BranchMapError, branchNameOf, parseBranchMap } from '../../../src/planner/sync/branchMap';
import { decodePlan, emptyPlan, nextPlanFiles } from '../../../src/planner/sync/planRef';
import { claimedWavePaths, findPublishedScope, foreignClaimsOf, mergeOnlyChanges, mergeRangeChanges, parseNameList, parseRawDiff, quotePathLikeGit, RawDiffError, verifyChanges } from '../../../src/planner/sync/verifyRange';
import type { RangeChange } from '../../../src/planner/sync/verifyRange';
import { claimOf, cloneNamed, T0, waveToPublish } from './syncFixtures';

const Z = '0'.repeat(40);
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const record = (oldMode: string, newMode: string, status: string, ...paths: string[]) => `:${oldMode} ${newMode} ${A} ${B} ${status}\0${paths.join('\0')}\0`;

describe('parseRawDiff (git diff --raw -z)', () => {
  const cases: Array<[string, string, RangeChange[]]> = [
    ['an added file', record('000000', '100644', 'A', 'src/new.ts'), [{ path: 'src/new.ts', kind: 'added' }]],
    ['a modified file', record('100644', '100644', 'M', 'src/a.ts'), [{ path: 'src/a.ts', kind: 'modified' }]],
    ['a mode change', record('100644', '100755', 'M', 'bin/run'), [{ path: 'bin/run', kind: 'modified' }]],
    ['a deleted file', record('100644', '000000', 'D', 'old.txt'), [{ path: 'old.txt', kind: 'deleted' }]],
    [
      'a rename (both sides)',
      record('100644', '100644', 'R093', 'src/a.ts', 'lib/a.ts'),
      [
        { path: 'src/a.ts', kind: 'renamed-from', counterpart: 'lib/a.ts' },
        { path: 'lib/a.ts', kind: 'renamed-to', counterpart: 'src/a.ts' },
      ],
    ],
    ['a copy (its destination)', record('100644', '100644', 'C100', 'src/a.ts', 'src/b.ts'), [{ path: 'src/b.ts', kind: 'copied-to', counterpart: 'src/a.ts' }]],
    ['a file become a link', record('100644', '120000', 'T', 'link'), [{ path: 'link', kind: 'type-changed' }]],
    ['a submodule bumped', record('160000', '160000', 'M', 'libs/sub'), [{ path: 'libs/sub', kind: 'submodule-bumped' }]],
    ['a submodule added', record('000000', '160000', 'A', 'libs/sub'), [{ path: 'libs/sub', kind: 'submodule-added' }]],
    ['a submodule removed', record('160000', '000000', 'D', 'libs/sub'), [{ path: 'libs/sub', kind: 'submodule-removed' }]],
    ['names with spaces, newlines and non-ASCII', record('000000', '100644', 'A', 'a b/\nnäme.ts'), [{ path: 'a b/\nnäme.ts', kind: 'added' }]],
    ['nothing', '', []],
  ];
  for (const [title, output, expected] of cases) it(title, () => assert.deepEqual(parseRawDiff(output), expected));

  it('reads several records in a row', () => {
    const output = record('000000', '100644', 'A', 'x') + record('100644', '100644', 'R100', 'y', 'z') + record('100644', '000000', 'D', 'w');
    assert.deepEqual(parseRawDiff(output).map((c) => `${c.kind}:${c.path}`), ['added:x', 'renamed-from:y', 'renamed-to:z', 'deleted:w']);
  });

  it('reads git\'s bytes: a UTF-8 path as its text, any other kept (quoted as git quotes it) and marked', () => {
    const bytes = Buffer.concat([
      Buffer.from(record('000000', '100644', 'A', 'ünï.ts')),
      Buffer.from(`:100644 100644 ${A} ${B} R100\0`),
      Buffer.from('src/b\xff/x\0to "q"\\\t\0', 'latin1'),
    ]);
    assert.deepEqual(parseRawDiff(bytes), [
      { path: 'ünï.ts', kind: 'added' },
      { path: '"src/b\\377/x"', kind: 'renamed-from', counterpart: 'to "q"\\\t', undecodable: true },
      { path: 'to "q"\\\t', kind: 'renamed-to', counterpart: '"src/b\\377/x"' },
    ]);
    assert.equal(quotePathLikeGit(Buffer.from('a"\\\n\x01é', 'latin1')), '"a\\"\\\\\\n\\001\\351"');
  });

  it('merges the changes of diffs against several merge bases, each once', () => {
    const one: RangeChange[] = [{ path: 'a', kind: 'modified' }, { path: 'b', kind: 'renamed-from', counterpart: 'c' }];
    const two: RangeChange[] = [{ path: 'a', kind: 'modified' }, { path: 'b', kind: 'renamed-from', counterpart: 'd' }, { path: 'e', kind: 'deleted' }];
    assert.deepEqual(mergeRangeChanges([one, two]), [...one, two[1], two[2]]);
    assert.deepEqual(mergeRangeChanges([]), []);
    // Only the paths the two tips disagree on bring anything to the merge.
    assert.deepEqual(mergeRangeChanges([one, two], new Set(['b', 'e'])), [one[1], two[1], two[2]]);
    assert.deepEqual(parseNameList(Buffer.from('a\0b c\0\xff\0', 'latin1')), ['a', 'b c', '"\\377"']);
  });

  it('keeps of a merge\'s changes only those at paths the range names nowhere, marked as the merge\'s', () => {
    const range: RangeChange[] = [{ path: 'src/a/x.ts', kind: 'modified' }, { path: 'src/a/new.ts', kind: 'renamed-to', counterpart: 'src/a/old.ts' }];
    const merge: RangeChange[] = [
      { path: 'docs/x.ts', kind: 'modified' },
      { path: 'src/a/x.ts', kind: 'modified' },
      { path: 'src/a/old.ts', kind: 'deleted' },
      { path: 'src/a/new.ts', kind: 'added' },
    ];
    assert.deepEqual(mergeOnlyChanges(range, merge), [{ path: 'docs/x.ts', kind: 'modified', viaMerge: true }]);
    assert.deepEqual(mergeOnlyChanges(range, []), []);
  });

  for (const [title, output] of [
    ['an unmerged record', record('100644', '100644', 'U', 'x')],
    ['a rename without destination', `:100644 100644 ${A} ${Z} R100\0only\0`],
    ['garbage', 'hello\0'],
  ]) {
    it(`refuses ${title} (a verifier never skips what it cannot read)`, () => assert.throws(() => parseRawDiff(output as string), RawDiffError));
  }
});

describe('verifyChanges', () => {
  it('compares entries and paths in NFC, as the write gate does; a path that is not UTF-8 is in no scope', () => {
    const changes: RangeChange[] = [
      { path: 'lib/cafe\u0301/x.ts', kind: 'added' },
      { path: 'lib/caf\u00e9/y.ts', kind: 'added' },
      { path: '"lib/caf\\351/z.ts"', kind: 'added', undecodable: true },
    ];
    for (const entry of ['lib/cafe\u0301/', 'lib/caf\u00e9/']) {
      const verdict = verifyChanges(changes, { entries: [entry], role: 'implementation', rivals: [] });
      assert.deepEqual(verdict.outside, [changes[2]], entry);
    }
    assert.equal(verifyChanges(changes, { entries: ['**'], role: 'implementation', rivals: [] }).outside.length, 1, 'not even "**" names it');
  });

  const changes: RangeChange[] = [
    { path: 'src/a/x.ts', kind: 'modified' },
    { path: 'src/a/x.test.ts', kind: 'added' },
    { path: 'src/b/y.ts', kind: 'renamed-from', counterpart: 'src/a/y.ts' },
    { path: 'src/a/y.ts', kind: 'renamed-to', counterpart: 'src/b/y.ts' },
    { path: 'libs/sub', kind: 'submodule-bumped' },
    { path: 'docs/readme.md', kind: 'deleted' },
  ];

  it('reports each change outside the scope, with its kind, in diff order', () => {
    const verdict = verifyChanges(changes, { entries: ['src/a/x.ts', 'src/a/y.ts'], role: 'implementation', rivals: [] });
    assert.equal(verdict.ok, false);
    assert.equal(verdict.checked, 6);
    assert.deepEqual(verdict.outside.map((c) => `${c.kind}:${c.path}`), ['renamed-from:src/b/y.ts', 'submodule-bumped:libs/sub', 'deleted:docs/readme.md']);
  });

  it('grants the test siblings of the role (as the write gate does), not in a role without them', () => {
    const inImplementation = verifyChanges([{ path: 'src/a/x.test.ts', kind: 'added' }], { entries: ['src/a/x.ts'], role: 'implementation', rivals: [] });
    assert.equal(inImplementation.ok, true);
    const inDocs = verifyChanges([{ path: 'src/a/x.test.ts', kind: 'added' }], { entries: ['src/a/x.ts'], role: 'docs', rivals: [] });
    assert.equal(inDocs.ok, false);
  });

  it("a test sibling another clone's live claim holds (declared or a plain sibling there) is outside; its glob siblings hold nothing", () => {
    let asked = 0;
    const foreignClaims = () => {
      asked += 1;
      return [
        { clone: 'c-other', cloneName: 'laptop', wave: 4, declared: { role: 'implementation', ignoreCase: false, agents: [{ agent: 'dave', entries: ['test/integration/', 'src/d/y.ts'] }] } },
        { clone: 'c-broken', cloneName: 'ci', wave: 7 },
      ];
    };
    const scope = { entries: ['src/a/x.ts', 'src/a/y.ts'], role: 'implementation', rivals: [], foreignClaims };
    const changes: RangeChange[] = [
      { path: 'src/a/x.ts', kind: 'modified' },
      { path: 'src/a/x.test.ts', kind: 'added' },
      { path: 'src/a/y.test.ts', kind: 'added' },
    ];
    const unreadable = verifyChanges(changes, scope);
    assert.deepEqual(unreadable.outside.map((change) => [change.path, change.claimedBy?.clone, change.claimedBy?.agent]), [
      ['src/a/x.test.ts', 'c-broken', null],
      ['src/a/y.test.ts', 'c-broken', null],
    ], 'an unreadable claim holds every sibling');
    assert.equal(asked, 1, 'asked once, for the first change in a sibling alone');
    assert.equal(verifyChanges([{ path: 'src/a/y.ts', kind: 'modified' }], scope).ok, true, 'a declared entry is never weighed against other clones');
    assert.equal(asked, 1, 'not asked when no change lies in a sibling alone');
    const readable = { ...scope, foreignClaims: () => foreignClaims().slice(0, 1) };
    const verdict = verifyChanges(
      [
        { path: 'src/a/x.ts', kind: 'modified' },
        { path: 'test/integration/x.test.ts', kind: 'added' },
        { path: 'tests/y.test.ts', kind: 'added' },
        { path: 'test/unit/y.test.ts', kind: 'added' },
      ],
      readable,
    );
    // dave's glob sibling test/**/y.test.ts holds nothing across clones, as publish's proof leaves it out.
    assert.deepEqual(verdict.outside, [{ path: 'test/integration/x.test.ts', kind: 'added', claimedBy: { clone: 'c-other', cloneName: 'laptop', wave: 4, agent: 'dave' } }]);
  });

  it("foreignClaimsOf: the live claims of other clones, each with its wave's agents, or none when the wave is missing", () => {
    const own = cloneNamed('own');
    const other = cloneNamed('other');
    const gone = cloneNamed('gone');
    const plan = {
      claims: [claimOf(own, 1), claimOf(other, 3), { ...claimOf(gone, 2), expiresAt: new Date(T0 - 1000).toISOString() }],
      waves: [],
      problems: [],
    };
    const claims = foreignClaimsOf(plan, own.id, T0);
    assert.deepEqual(claims.map((claim) => [claim.clone, claim.wave, claim.declared]), [[other.id, 3, undefined]]);
    const wanted = claimedWavePaths(plan.claims, own.id, T0);
    assert.equal(wanted(`clones/${other.id}/waves/3/wave-scope.json`), true);
    assert.equal(wanted(`clones/${own.id}/waves/1/wave-scope.json`), false);
    assert.equal(wanted(`clones/${gone.id}/waves/2/wave-scope.json`), false);
    assert.equal(wanted('claims.json'), true);
  });

  it('a test sibling another agent of the wave claims (declared, or as its own sibling) is outside, naming that agent', () => {
    const scope = { entries: ['src/a/x.ts'], role: 'implementation', rivals: [{ agent: 'bob', entries: ['test/'] }, { agent: 'carol', entries: ['src/c/x.ts'] }] };
    const verdict = verifyChanges(
      [
        { path: 'src/a/x.test.ts', kind: 'added' },
        { path: 'test/deep/x.test.ts', kind: 'added' },
        { path: 'tests/x.test.ts', kind: 'modified' },
        { path: 'src/c/x.ts', kind: 'modified' },
      ],
      scope,
    );
    assert.deepEqual(
      verdict.outside.map((change) => [change.path, change.contestedBy]),
      [
        ['test/deep/x.test.ts', 'bob'],
        ['tests/x.test.ts', 'carol'],
        ['src/c/x.ts', undefined],
      ],
    );
    // Without rivals the same siblings are the agent's.
    assert.equal(verifyChanges([{ path: 'test/deep/x.test.ts', kind: 'added' }], { ...scope, rivals: [] }).ok, true);
  });

  it('passes a range wholly in scope; a submodule path is in scope when an entry names it', () => {
    assert.equal(verifyChanges(changes, { entries: ['src/', 'libs/sub', 'docs/'], role: '', rivals: [] }).ok, true);
  });

  it('an empty scope grants nothing; an empty range passes', () => {
    assert.equal(verifyChanges(changes, { entries: [], role: '', rivals: [] }).outside.length, changes.length);
    assert.equal(verifyChanges([], { entries: [], role: '', rivals: [] }).ok, true);
  });

  it('a path with an empty, "." or ".." segment (a tree only plumbing makes) lies in no scope', () => {
    for (const path of ['src/a/../b/z.ts', 'src/a/./x.ts', 'src/a//x.ts', '../x.ts', 'src/a/x.ts/']) {
      assert.equal(verifyChanges([{ path, kind: 'added' }], { entries: ['src/a/', '**'], role: '', rivals: [] }).ok, false, path);
    }
    assert.equal(verifyChanges([{ path: 'src/a/..x/y.ts', kind: 'added' }], { entries: ['src/a/'], role: '', rivals: [] }).ok, true, 'a name that only starts with two dots is a name');
  });

  it('compares in NFC and folds case only when asked', () => {
    const nfd = 'docs/cafe\u0301.md';
    assert.equal(verifyChanges([{ path: nfd, kind: 'added' }], { entries: ['docs/caf\u00e9.md'], role: '', rivals: [] }).ok, true);
    assert.equal(verifyChanges([{ path: 'SRC/A.ts', kind: 'added' }], { entries: ['src/a.ts'], role: '', rivals: [] }).ok, false);
    assert.equal(verifyChanges([{ path: 'SRC/A.ts', kind: 'added' }], { entries: ['src/a.ts'], role: '', rivals: [] }, { ignoreCase: true }).ok, true);
  });
});

describe('findPublishedScope', () => {
  const alpha = cloneNamed('c-alpha');
  const beta = cloneNamed('c-beta');
  const files = nextPlanFiles(
    new Map(),
    emptyPlan(),
    {
      claims: [claimOf(alpha, 3)],
      write: [
        waveToPublish(alpha, 3, [{ id: 'alice', files: ['src/a/'] }, { id: 'shared', files: ['x/'] }]),
        waveToPublish(beta, 3, [{ id: 'bob', files: ['src/b/'] }, { id: 'shared', files: ['y/'] }]),
      ],
    },
    T0,
  );
  const plan = decodePlan(files);

  it('finds the one clone whose wave declares the agent (claimed or not)', () => {
    const found = findPublishedScope(plan, { wave: 3, agent: 'bob' });
    assert.deepEqual(found.ok && [found.clone, found.entries, found.role], ['c-beta', ['src/b/'], 'implementation']);
    assert.deepEqual(found.ok && found.rivals, [{ agent: 'shared', entries: ['y/'] }], 'the other agents of its own wave, not of the other clone\'s');
  });
  it('asks for the clone when two clones\' waves declare it', () => {
    assert.deepEqual(findPublishedScope(plan, { wave: 3, agent: 'shared' }), { ok: false, reason: 'ambiguous', clones: ['c-alpha', 'c-beta'] });
    const named = findPublishedScope(plan, { wave: 3, agent: 'shared', clone: 'c-beta' });
    assert.deepEqual(named.ok && named.entries, ['y/']);
  });
  it('no scope for an unknown agent, wave or clone', () => {
    for (const query of [{ wave: 3, agent: 'nobody' }, { wave: 4, agent: 'alice' }, { wave: 3, agent: 'alice', clone: 'c-beta' }, { wave: 3, agent: 'Alice' }]) {
      assert.equal(findPublishedScope(plan, query).ok, false, JSON.stringify(query));
    }
  });
  it('gives the case rule the wave was proven under, as published', () => {
    const found = findPublishedScope(plan, { wave: 3, agent: 'bob' });
    assert.deepEqual(found.ok && found.ignoreCase, false);
    const folded = waveToPublish(alpha, 5, [{ id: 'carol', files: ['lib/'] }]);
    const foldedFiles = nextPlanFiles(files, plan, { claims: [], write: [{ ...folded, info: { ...folded.info, ignoreCase: true } }] }, T0);
    const foldedScope = findPublishedScope(decodePlan(foldedFiles), { wave: 5, agent: 'carol' });
    assert.deepEqual(foldedScope.ok && foldedScope.ignoreCase, true);
  });
  it('fails closed when a wave of that number cannot be read', () => {
    const broken = new Map(files);
    broken.set('clones/c-beta/waves/3/filescopes/wave-3/bob.json', '["**"]');
    assert.equal(findPublishedScope(decodePlan(broken), { wave: 3, agent: 'alice' }).ok, false);
  });
});

describe('branch maps', () => {
  const rules = parseBranchMap({
    version: 1,
    branches: [
      { branch: 'wave-{wave}/{agent}' },
      { branch: 'agents/*/{agent}', wave: 3 },
      { branch: 'fix-login', wave: 2, agent: 'alice', clone: 'c-alpha' },
      { branch: '{clone}/w{wave}-{agent}' },
    ],
  });
  const cases: Array<[string, unknown]> = [
    ['wave-3/alice', { wave: 3, agent: 'alice', rule: 'wave-{wave}/{agent}' }],
    ['wave-12/bob_2', { wave: 12, agent: 'bob_2', rule: 'wave-{wave}/{agent}' }],
    ['agents/team-a/carol', { wave: 3, agent: 'carol', rule: 'agents/*/{agent}' }],
    ['fix-login', { wave: 2, agent: 'alice', clone: 'c-alpha', cloneFrom: 'rule', rule: 'fix-login' }],
    ['c-beta/w4-dave', { wave: 4, agent: 'dave', clone: 'c-beta', cloneFrom: 'branch', rule: '{clone}/w{wave}-{agent}' }],
    ['wave-0/alice', undefined],
    ['wave-3/alice/extra', undefined],
    ['agents/a/b/carol', undefined],
    ['main', undefined],
    ['fix-loginx', undefined],
  ];
  for (const [branch, expected] of cases) it(`${branch} → ${JSON.stringify(expected)}`, () => assert.deepEqual(agentForBranch(rules, branch), expected));

  const bad: Array<[string, unknown, RegExp]> = [
    ['not an object', [], /JSON object/],
    ['a wrong version', { version: 2, branches: [{ branch: 'x', wave: 1, agent: 'a' }] }, /version/],
    ['no rules', { version: 1, branches: [] }, /non-empty/],
    ['no wave', { version: 1, branches: [{ branch: '{agent}' }] }, /yields no wave/],
    ['no agent', { version: 1, branches: [{ branch: 'w{wave}' }] }, /yields no agent/],
    ['both', { version: 1, branches: [{ branch: 'w{wave}/{agent}', wave: 1 }] }, /both in the template and as a field/],
    ['an unknown placeholder', { version: 1, branches: [{ branch: '{team}/{agent}', wave: 1 }] }, /unknown placeholder \{team\}/],
    ['a bad agent id', { version: 1, branches: [{ branch: 'x', wave: 1, agent: '../etc' }] }, /not an agent id/],
  ];
  for (const [title, map, message] of bad) it(`refuses ${title}`, () => assert.throws(() => parseBranchMap(map), (error: Error) => error instanceof BranchMapError && message.test(error.message)));

  it('takes refs/heads/ and refs/remotes/<remote>/ off a ref', () => {
    assert.equal(branchNameOf('refs/heads/wave-1/a', 'origin'), 'wave-1/a');
    assert.equal(branchNameOf('refs/remotes/origin/wave-1/a', 'origin'), 'wave-1/a');
    assert.equal(branchNameOf('refs/remotes/fork/wave-1/a', 'origin'), 'refs/remotes/fork/wave-1/a');
    assert.equal(branchNameOf('wave-1/a', 'origin'), 'wave-1/a');
  });
});
