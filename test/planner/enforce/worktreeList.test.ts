import assert from 'node:assert/strict';
import { parseWorktreeList } from '../../../src/planner/enforce/worktreeList';
import type { ListedWorktree } from '../../../src/planner/enforce/worktreeList';

describe('parseWorktreeList: git worktree list --porcelain -z', () => {
  const cases: Array<[string, string, ListedWorktree[]]> = [
    ['one checkout', 'worktree /r\0HEAD 1111111111111111111111111111111111111111\0branch refs/heads/main\0\0', [{ path: '/r', bare: false }]],
    [
      'a linked worktree, detached, locked with and without a reason, prunable',
      [
        'worktree /r', 'HEAD 1', 'branch refs/heads/main', '',
        'worktree /r-agent', 'HEAD 2', 'detached', '',
        'worktree /r-usb', 'HEAD 3', 'branch refs/heads/usb', 'locked on a usb disk', '',
        'worktree /r-kept', 'HEAD 4', 'branch refs/heads/kept', 'locked', '',
        'worktree /r-gone', 'HEAD 5', 'branch refs/heads/gone', 'prunable gitdir file points to non-existent location', '',
        '',
      ].join('\0'),
      [
        { path: '/r', bare: false },
        { path: '/r-agent', bare: false },
        { path: '/r-usb', bare: false, locked: 'on a usb disk' },
        { path: '/r-kept', bare: false, locked: '' },
        { path: '/r-gone', bare: false, prunable: 'gitdir file points to non-existent location' },
      ],
    ],
    ['a bare repository with a worktree', 'worktree /srv/r.git\0bare\0\0worktree /w\0HEAD 1\0branch refs/heads/x\0\0', [{ path: '/srv/r.git', bare: true }, { path: '/w', bare: false }]],
    ['a path with a newline and spaces, taken as it is', 'worktree /tmp/a b\nc\0HEAD 1\0detached\0\0', [{ path: '/tmp/a b\nc', bare: false }]],
    ['no trailing separator', 'worktree /r\0HEAD 1\0detached', [{ path: '/r', bare: false }]],
    ['nothing', '', []],
    ['attributes before any worktree line are ignored', 'locked x\0bare\0\0worktree /r\0\0', [{ path: '/r', bare: false }]],
  ];
  for (const [name, output, expected] of cases) {
    it(name, () => assert.deepEqual(parseWorktreeList(output), expected));
  }
});
