import assert from 'node:assert/strict';
import { matchIncludePattern } from '../../../src/planner/enforce/includePattern';

describe('matchIncludePattern: includeIf patterns decided where certain', () => {
  const table: Array<[pattern: string, text: string, casefold: boolean, expected: boolean | undefined]> = [
    ['/repo/.git', '/repo/.git', false, true],
    ['/repo/.git', '/repo/.git/worktrees/w', false, false],
    ['/repo/**', '/repo/.git', false, true],
    ['/repo/**', '/repo/', false, true],
    ['/repo/**', '/repo', false, false],
    ['/repo/**', '/repository/.git', false, false],
    ['**/repo/.git', '/home/u/repo/.git', false, true],
    ['**/repo/.git', 'repo/.git', false, true],
    ['**/repo/.git', '/home/u/myrepo/.git', false, false],
    ['**/worktrees/**', '/r/.git/worktrees/wt', false, true],
    ['**/worktrees/**', '/r/.git/myworktrees/wt', false, false],
    ['/REPO/**', '/repo/.git', false, false],
    ['/REPO/**', '/repo/.git', true, true],
    ['/répo/**', '/RÉPO/.git', true, false],
    ['feature/**', 'feature/x', false, true],
    ['main', 'main', false, true],
    ['main', 'maintenance', false, false],
    // Any other glob character: left open.
    ['/repo/*/wt', '/repo/.git/wt', false, undefined],
    ['/repo/w?', '/repo/wt', false, undefined],
    ['/repo/[a-z]t', '/repo/wt', false, undefined],
    ['/repo/**/wt', '/repo/a/wt', false, undefined],
    ['/repo/\\*', '/repo/*', false, undefined],
  ];
  for (const [pattern, text, casefold, expected] of table) {
    it(`${pattern} ${casefold ? '(casefold) ' : ''}against ${text}: ${String(expected)}`, () => {
      assert.equal(matchIncludePattern(pattern, text, casefold), expected);
    });
  }
});
