import assert from 'node:assert/strict';
import { readCommitStatus, selectCommitPaths, turnCommitMessage } from '../../../src/planner/backstop/scopedCommit';
import type { CommitCandidate } from '../../../src/planner/backstop/scopedCommit';

describe('backstop: choosing the paths of a scoped commit', () => {
  it('takes exactly the reported, unchanged in-scope changes, file by file', () => {
    const status = readCommitStatus('?? src/new.ts\0?? src/evil.py\0 M src/app.ts\0 D src/old.ts\0 M src/drift.ts\0R  src/moved.ts\0src/was.ts\0 M README.md\0');
    const candidates: CommitCandidate[] = [
      { path: 'src/new.ts', kind: 'created', after: 'n' },
      { path: 'src/app.ts', kind: 'modified', after: 'a' },
      { path: 'src/old.ts', kind: 'deleted' },
      { path: 'src/drift.ts', kind: 'modified', after: 'd' },
      { path: 'src/committed.ts', kind: 'modified', after: 'c' },
      { path: 'src/moved.ts', kind: 'created', after: 'm' },
      { path: 'src/was.ts', kind: 'deleted' },
    ];
    const current = new Map<string, string | null>([
      ['src/new.ts', 'n'],
      ['src/app.ts', 'a'],
      ['src/old.ts', null],
      ['src/drift.ts', 'changed since'],
      ['src/committed.ts', 'c'],
      ['src/moved.ts', 'm'],
      ['src/was.ts', null],
    ]);
    const selection = selectCommitPaths(status, candidates, (path) => current.get(path) ?? null);
    assert.deepEqual(selection, {
      paths: ['src/new.ts', 'src/app.ts', 'src/old.ts', 'src/moved.ts', 'src/was.ts'],
      untracked: ['src/new.ts'],
      settled: ['src/committed.ts'],
      drifted: ['src/drift.ts'],
    });
    assert.ok(!selection.paths.includes('src/evil.py') && !selection.paths.includes('README.md'), 'nothing outside the candidates, however it is reported');
  });

  it('names the wave and the agent in the message, as subject and trailers', () => {
    const message = turnCommitMessage({ wave: 3, agent: 'bob', turn: '20261201T120000Z-42', files: 1 });
    assert.match(message, /^wave 3, agent bob: 1 file\n/);
    assert.match(message, /\nWave-Scope-Wave: 3\nWave-Scope-Agent: bob\nWave-Scope-Turn: 20261201T120000Z-42\n$/);
  });
});
