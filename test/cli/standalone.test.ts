import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtCliPath } from '../support/builtCli';

describe('dist/cli.js is self-contained', () => {
  it('runs with plain node from a directory with no node_modules anywhere above it', () => {
    // tmpdir() has no node_modules above it, so any require() the bundle did not inline would fail here.
    const alone = mkdtempSync(join(tmpdir(), 'wave-scope-alone-'));
    try {
      copyFileSync(builtCliPath, join(alone, 'cli.js'));
      writeFileSync(join(alone, 'wave.json'), JSON.stringify([{ id: 'a', files: ['src/*.ts'] }, { id: 'b', files: ['src/a.*'] }]));
      const run = spawnSync(process.execPath, [join(alone, 'cli.js'), 'validate', '--assert-disjoint', 'wave.json', '--no-manifest', '--json'], {
        cwd: alone,
        encoding: 'utf8',
        env: { PATH: process.env.PATH },
      });
      assert.equal(run.status, 1, run.stderr);
      assert.equal(JSON.parse(run.stdout).collisions[0].witness, 'src/a.ts');
    } finally {
      rmSync(alone, { recursive: true, force: true });
    }
  });
});
