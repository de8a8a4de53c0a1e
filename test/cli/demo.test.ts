import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

describe('npm run demo:cli (scripts/demo.mjs)', () => {
  it('validates the demo plan in a fresh git copy of the demo repository and prints its three collisions', () => {
    const root = join(__dirname, '..', '..');
    const run = spawnSync(process.execPath, [join(root, 'scripts', 'demo.mjs')], { cwd: root, encoding: 'utf8' });
    const repo = /Demo repository: (\S+)/.exec(run.stdout)?.[1];
    if (repo) rmSync(repo, { recursive: true, force: true });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(
      run.stderr.split('\n').filter((line) => line.startsWith('ERROR:')),
      [
        'ERROR: agents "api" and "ui" both claim src/shared/types.ts',
        'ERROR: agents "api" and "docs" both claim src/api/ and **/*.stories.tsx (for example src/api/x.stories.tsx)',
        'ERROR: agents "ui" and "docs" both claim src/ui/**/*.tsx and **/*.stories.tsx (for example src/ui/Cart.stories.tsx)',
      ],
    );
    assert.match(run.stdout, /Exit 1: the plan hands files to two agents/);
  });
});
