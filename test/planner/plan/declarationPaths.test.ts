import assert from 'node:assert/strict';
import { agentScopePath, manifestPath, waveDirPath, waveSidecarPath } from '../../../src/planner/plan/declarationPaths';

describe('path builders', () => {
  it('lay out the reference system\'s paths', () => {
    assert.equal(manifestPath('/r/.claude'), '/r/.claude/wave-scope.json');
    assert.equal(waveDirPath('/r/.claude', 3), '/r/.claude/filescopes/wave-3');
    assert.equal(agentScopePath('/r/.claude', 3, 'alice'), '/r/.claude/filescopes/wave-3/alice.json');
    assert.equal(waveSidecarPath('/r/.claude', 3), '/r/.claude/filescopes/wave-3.scopes.json');
  });
  const bad: Array<[string, () => unknown, RegExp]> = [
    ['an id with ..', () => agentScopePath('/s', 1, '../x'), /agent id "\.\.\/x" must match/],
    ['an empty id', () => agentScopePath('/s', 1, ''), /agent id "" must match/],
    ['wave 0', () => waveSidecarPath('/s', 0), /wave must be a positive integer, got 0/],
    ['wave 1.5', () => waveDirPath('/s', 1.5), /wave must be a positive integer/],
  ];
  for (const [name, build, pattern] of bad) it(`refuse ${name}`, () => assert.throws(build, pattern));
});
