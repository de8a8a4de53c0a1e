import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtCliPath } from '../support/builtCli';
import { renderLauncher } from '../../src/planner/enforce/launcherConfig';

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

  it('the hook bundle and the launcher run with plain node and nothing beside them, and the launcher loads the bundle it records', () => {
    const alone = mkdtempSync(join(tmpdir(), 'wave-scope-alone-'));
    try {
      // A repository with an active wave, the lean bundle somewhere else, the launcher in the state directory.
      mkdirSync(join(alone, 'repo/.git'), { recursive: true });
      mkdirSync(join(alone, 'repo/.claude'), { recursive: true });
      writeFileSync(join(alone, 'repo/.claude/wave-scope.json'), JSON.stringify({ version: 1, wave: 1, role: 'implementation', enforcement: 'strict', allowedPaths: ['src/'], blockedCommands: [] }));
      mkdirSync(join(alone, 'cli/dist'), { recursive: true });
      copyFileSync(join(builtCliPath, '..', 'hook.js'), join(alone, 'cli/dist/hook.js'));
      writeFileSync(join(alone, 'cli/dist/cli.js'), '');
      const launcher = join(alone, 'repo/.claude/wave-scope-hook.cjs');
      writeFileSync(launcher, renderLauncher(readFileSync(join(builtCliPath, '..', 'launcher.cjs'), 'utf8'), { version: 1, recorded: [join(alone, 'cli/dist/cli.js')] }));
      const payload = (target: string) => JSON.stringify({ hook_event_name: 'PreToolUse', session_id: 's', cwd: join(alone, 'repo'), tool_name: 'Write', tool_input: { file_path: target } });
      const env = { PATH: process.env.PATH, HOME: alone };
      const denied = spawnSync(process.execPath, [launcher, 'enforce-write', '--agent-cli', 'claude'], { input: payload('docs/x.md'), encoding: 'utf8', env });
      assert.equal(denied.status, 0, denied.stderr);
      assert.match(denied.stdout, /"permissionDecision":"deny"/);
      const allowed = spawnSync(process.execPath, [join(alone, 'cli/dist/hook.js'), 'enforce-write', '--agent-cli', 'claude'], { input: payload('src/x.ts'), encoding: 'utf8', env });
      assert.equal(allowed.status, 0, allowed.stderr);
      assert.equal(allowed.stdout, '');
    } finally {
      rmSync(alone, { recursive: true, force: true });
    }
  });
});
