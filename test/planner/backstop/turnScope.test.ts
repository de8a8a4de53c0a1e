import assert from 'node:assert/strict';
import type { ManifestState } from '../../../src/planner/enforce/writeDecision';
import type { PathChange } from '../../../src/planner/backstop/snapshotDiff';
import { judgeChanges, strictTurnManifest } from '../../../src/planner/backstop/turnScope';
import type { JudgeContext } from '../../../src/planner/backstop/turnScope';
import { expandTestSiblings } from '../../../src/planner/scope/testSiblings';

const ROOT = '/repo';
const changes = (...paths: string[]): PathChange[] => paths.map((path) => ({ path, kind: 'modified', before: 'x', after: 'y' }));
const CONTROL = ['/repo/.claude/settings.json', '/repo/.git', '/repo/.codex/wave-scope.json'];

function manifest(allowedPaths: string[], enforcement: 'strict' | 'warn' | 'off' = 'strict', session: 'own' | 'foreign' | 'unknown' = 'unknown'): ManifestState {
  return { kind: 'loaded', path: '/repo/.claude/wave-scope.json', session, manifest: { wave: 2, role: 'implementation', enforcement, allowedPaths } };
}

function context(overrides: Partial<JudgeContext>): JudgeContext {
  return { manifest: manifest(['src/']), dispatchedAgent: false, controlPaths: CONTROL, writeRoot: ROOT, ...overrides };
}

function outside(judgement: ReturnType<typeof judgeChanges>): string[] {
  assert.ok(judgement.verdict === 'out-of-scope' || judgement.verdict === 'warn', JSON.stringify(judgement));
  return judgement.violations.map((violation) => `${violation.change.path}:${violation.kind}`);
}

describe('backstop: judging changes by the write gate\'s rules', () => {
  // The union that backs the agent's scope (the gate's rule): by default its own entries and their test siblings.
  const turn = (entries: string[] | undefined, role?: string, union = role === undefined ? (entries ?? []) : expandTestSiblings(entries ?? [], { role })) =>
    context({
      manifest: strictTurnManifest(2, '/repo/.claude/filescopes/wave-2/alice.json', role, union),
      agentScope:
        entries === undefined
          ? { kind: 'unusable', agent: 'alice', path: '/repo/.claude/filescopes/wave-2/alice.json', problem: 'does not exist' }
          : { kind: 'loaded', agent: 'alice', path: '/repo/.claude/filescopes/wave-2/alice.json', entries },
      ...(role !== undefined ? { role } : {}),
      dispatchedAgent: true,
    });

  const cases: Array<{ name: string; context: JudgeContext; paths: string[]; verdict: string; outside?: string[] }> = [
    { name: 'an agent\'s turn inside its scope', context: turn(['src/']), paths: ['src/a.ts', 'src/b/c.ts'], verdict: 'in-scope' },
    { name: 'an agent\'s turn outside its scope', context: turn(['src/a.ts']), paths: ['src/a.ts', 'src/b.ts'], verdict: 'out-of-scope', outside: ['src/b.ts:outside-scope'] },
    { name: 'an empty scope allows nothing', context: turn([]), paths: ['src/a.ts'], verdict: 'out-of-scope', outside: ['src/a.ts:outside-scope'] },
    { name: 'no scope file allows nothing', context: turn(undefined), paths: ['src/a.ts'], verdict: 'out-of-scope', outside: ['src/a.ts:no-agent-scope'] },
    { name: 'a turn that changes nothing passes even without a scope', context: turn(undefined), paths: [], verdict: 'in-scope' },
    { name: 'the role gives the agent its test siblings', context: turn(['src/cart/total.ts'], 'implementation'), paths: ['src/cart/total.test.ts'], verdict: 'in-scope' },
    { name: 'without the role, no siblings', context: turn(['src/cart/total.ts']), paths: ['src/cart/total.test.ts'], verdict: 'out-of-scope', outside: ['src/cart/total.test.ts:outside-scope'] },
    { name: 'a scope the wave\'s union does not back allows nothing beyond the union', context: turn(['src/'], undefined, ['src/a.ts']), paths: ['src/a.ts', 'src/b.ts'], verdict: 'out-of-scope', outside: ['src/b.ts:agent-scope-unbacked'] },
    { name: 'control state is never an agent\'s, whatever its scope', context: turn(['**']), paths: ['.claude/settings.json', 'src/a.ts'], verdict: 'out-of-scope', outside: ['.claude/settings.json:control-file'] },
    { name: 'the coordinator (not dispatched) is judged by allowedPaths', context: context({}), paths: ['src/a.ts', 'docs/x.md'], verdict: 'out-of-scope', outside: ['docs/x.md:outside-scope'] },
    { name: 'no manifest: nothing is checked', context: context({ manifest: { kind: 'missing' } }), paths: ['x'], verdict: 'not-checked' },
    { name: 'another session\'s manifest: nothing is checked', context: context({ manifest: manifest(['src/'], 'strict', 'foreign') }), paths: ['x'], verdict: 'not-checked' },
    { name: 'enforcement off: nothing is checked', context: context({ manifest: manifest(['src/'], 'off') }), paths: ['x'], verdict: 'not-checked' },
    { name: 'enforcement warn reports', context: context({ manifest: manifest(['src/'], 'warn') }), paths: ['x'], verdict: 'warn', outside: ['x:outside-scope'] },
    { name: 'an unusable manifest vouches for nothing', context: context({ manifest: { kind: 'invalid', path: '/repo/.claude/wave-scope.json', problems: ['not JSON'] } }), paths: ['src/a.ts'], verdict: 'invalid-manifest' },
  ];
  for (const { name, context: ctx, paths, verdict, outside: expected } of cases) {
    it(name, () => {
      const judgement = judgeChanges(changes(...paths), ctx);
      assert.equal(judgement.verdict, verdict, JSON.stringify(judgement));
      if (expected !== undefined) assert.deepEqual(outside(judgement), expected);
    });
  }

  it('compares in NFC and folds case on a case-insensitive repository, as the gate does', () => {
    assert.equal(judgeChanges(changes('src/cafe\u0301.ts'), turn(['src/café.ts'])).verdict, 'in-scope');
    const provenFolded = { ...turn(['src/a.ts']), manifest: strictTurnManifest(2, '/repo/.claude/filescopes/wave-2/alice.json', undefined, ['src/a.ts'], true) };
    assert.equal(judgeChanges(changes('SRC/A.ts'), { ...provenFolded, ignoreCase: true }).verdict, 'in-scope');
    assert.equal(judgeChanges(changes('SRC/A.ts'), turn(['src/a.ts'])).verdict, 'out-of-scope');
    // A wave proven with case compared is never widened by a config that folds (red-team review, 2026-12-06).
    assert.equal(judgeChanges(changes('SRC/A.ts'), { ...turn(['src/a.ts']), ignoreCase: true }).verdict, 'out-of-scope');
  });
});
