import assert from 'node:assert/strict';
import {
  AGENT_HOOK_TARGETS,
  HookConfigError,
  mergeAgentHook,
  planPreCommitInstall,
  planPreCommitRemoval,
  preCommitHookPath,
  removeAgentHook,
} from '../../../src/planner/enforce/hookInstaller';

const COMMAND = "node '/r/.claude/wave-scope-hook.cjs' enforce-write";

describe('hook installer (pure merge and unmerge)', () => {
  for (const target of AGENT_HOOK_TARGETS) {
    describe(target.configFile, () => {
      const foreignHook = target.layout === 'grouped'
        ? { [target.event]: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'other-tool check' }] }] }
        : { [target.event]: [{ command: 'other-tool check' }] };
      const existing: { model: string; permissions: unknown; hooks: Record<string, unknown> } = {
        model: 'x',
        permissions: { allow: ['Read'] },
        hooks: { ...foreignHook, Stop: [{ hooks: [{ type: 'command', command: 'notify' }] }] },
      };

      it('keeps every existing key and hook, and adds ours once (idempotent)', () => {
        const once = mergeAgentHook(existing, target, COMMAND);
        const twice = mergeAgentHook(once, target, COMMAND);
        assert.deepEqual(twice, once);
        assert.equal(once.model, 'x');
        assert.deepEqual(once.permissions, { allow: ['Read'] });
        const text = JSON.stringify(once);
        assert.equal(text.split('wave-scope-hook.cjs').length - 1, 1);
        assert.ok(text.includes('other-tool check') && text.includes('notify'));
        assert.deepEqual(existing.hooks[target.event], foreignHook[target.event], 'the input is not mutated');
      });

      it('uninstall removes exactly what install added', () => {
        const removed = removeAgentHook(mergeAgentHook(existing, target, COMMAND), target);
        assert.equal(removed.removed, true);
        const expected = target.layout === 'flat' ? { ...existing, version: 1 } : existing;
        assert.deepEqual(removed.doc, expected);
        assert.equal(removeAgentHook(existing, target).removed, false);
      });

      it('round-trips a missing file to an empty document', () => {
        const installed = mergeAgentHook(undefined, target, COMMAND);
        const { doc } = removeAgentHook(installed, target);
        assert.deepEqual(doc, target.layout === 'flat' ? { version: 1 } : {});
      });

      it('refuses documents it cannot merge into without loss', () => {
        assert.throws(() => mergeAgentHook([], target, COMMAND), HookConfigError);
        assert.throws(() => mergeAgentHook({ hooks: [] }, target, COMMAND), HookConfigError);
        assert.throws(() => mergeAgentHook({ hooks: { [target.event]: {} } }, target, COMMAND), HookConfigError);
      });
    });
  }

  describe('git pre-commit', () => {
    const guard = "node '/r/.claude/wave-scope-hook.cjs' commit-guard";

    it('creates a hook, and uninstall deletes the file it created', () => {
      const plan = planPreCommitInstall(undefined, guard);
      assert.equal(plan.kind, 'write');
      assert.match(plan.text, /^#!\/bin\/sh\n/);
      assert.ok(plan.text.includes(`${guard} || exit 1`));
      assert.deepEqual(planPreCommitRemoval(plan.text), { kind: 'delete' });
    });

    it('puts the guard first in an existing shell hook, keeps the rest, and is idempotent', () => {
      const existing = '#!/usr/bin/env bash\nset -e\nnpm run lint-staged\n';
      const once = planPreCommitInstall(existing, guard);
      assert.equal(once.kind, 'write');
      assert.ok(once.text.startsWith('#!/usr/bin/env bash\n# >>> wave-scope commit guard >>>'));
      assert.ok(once.text.endsWith('set -e\nnpm run lint-staged\n'));
      assert.equal(planPreCommitInstall(once.text, guard).text, once.text);
      const removal = planPreCommitRemoval(once.text);
      assert.deepEqual(removal, { kind: 'write', text: existing });
    });

    it('a husky hook without a shebang gets the block on top', () => {
      const husky = 'npx lint-staged\n';
      const plan = planPreCommitInstall(husky, guard);
      assert.ok(plan.text.startsWith('# >>> wave-scope commit guard >>>'));
      assert.ok(plan.text.endsWith(husky));
      assert.deepEqual(planPreCommitRemoval(plan.text), { kind: 'write', text: husky });
    });

    it('chains a hook that is not a shell script instead of editing it', () => {
      const python = '#!/usr/bin/env python3\nprint("checks")\n';
      const plan = planPreCommitInstall(python, guard);
      assert.equal(plan.kind, 'chain');
      assert.match(plan.text, /exec "\$\(dirname "\$0"\)\/pre-commit\.wave-scope-chained" "\$@"/);
      assert.deepEqual(planPreCommitRemoval(plan.text), { kind: 'restore-chained' });
      assert.equal(planPreCommitInstall(plan.text, guard).kind, 'write', 're-install rewrites the wrapper, never chains it');
    });

    it('leaves a hook without our block alone on uninstall', () => {
      assert.deepEqual(planPreCommitRemoval('#!/bin/sh\nexit 0\n'), { kind: 'unchanged' });
      assert.deepEqual(planPreCommitRemoval(undefined), { kind: 'unchanged' });
    });

    const locations: Array<[string | undefined, string]> = [
      [undefined, '/c/.git/hooks/pre-commit'],
      ['', '/c/.git/hooks/pre-commit'],
      ['.githooks', '/w/.githooks/pre-commit'],
      ['/abs/hooks/', '/abs/hooks/pre-commit'],
      ['.husky/_', '/w/.husky/pre-commit'],
      ['.husky', '/w/.husky/pre-commit'],
    ];
    for (const [hooksPath, expected] of locations) {
      it(`core.hooksPath ${JSON.stringify(hooksPath)} → ${expected}`, () => {
        assert.equal(preCommitHookPath({ topLevel: '/w', commonDir: '/c/.git', hooksPath }), expected);
      });
    }
  });
});
