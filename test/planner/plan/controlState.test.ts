import assert from 'node:assert/strict';
import fc from 'fast-check';
import { braceExpand } from 'minimatch';
import {
  CONTROL_STATE,
  controlStateOf,
  findControlOverlap,
  HOOK_SETTINGS_FILES,
  liesInsideStateDir,
  NESTED_CONTROL_STATE,
  stateDirControlState,
} from '../../../src/planner/plan/controlState';
import type { ControlStateKind } from '../../../src/planner/plan/controlState';
import { LAUNCHER_FILE_NAME, MANIFEST_FILE_NAME, STATE_DIR_NAMES } from '../../../src/planner/plan/stateDirNames';
import { AGENT_HOOK_TARGETS } from '../../../src/planner/enforce/hookInstaller';
import { compileScopeEntry, normalizeScopeEntry } from '../../../src/planner/scope/scopeEntry';
import { oracleMatcher } from '../../support/globOracle';

describe('controlState: the catalogue', () => {
  it('holds normalised scope entries of the grammar, each once', () => {
    for (const { entry } of [...CONTROL_STATE, ...NESTED_CONTROL_STATE]) assert.equal(normalizeScopeEntry(entry), entry);
    const entries = CONTROL_STATE.map((control) => control.entry);
    assert.equal(new Set(entries).size, entries.length);
  });

  it('names every state directory\'s manifest, declarations and hook launcher, at the root and at any depth', () => {
    for (const name of STATE_DIR_NAMES) {
      for (const [path, kind] of [
        [`${name}/${MANIFEST_FILE_NAME}`, 'manifest'],
        [`${name}/filescopes`, 'declarations'],
        [`${name}/filescopes/wave-1.scopes.json`, 'declarations'],
        [`${name}/${LAUNCHER_FILE_NAME}`, 'hook-launcher'],
      ] as const) {
        assert.equal(controlStateOf(path)?.kind, kind, path);
        assert.equal(controlStateOf(`src/a/${path}`)?.kind, kind, `src/a/${path}`);
      }
    }
  });

  it('names every hook settings file the installer writes', () => {
    for (const target of AGENT_HOOK_TARGETS) assert.ok(HOOK_SETTINGS_FILES.includes(target.configFile), target.configFile);
  });

  const concrete: Array<[string, ControlStateKind | undefined]> = [
    ['.git', 'git'],
    ['.git/HEAD', 'git'],
    ['.git/hooks/pre-commit', 'git'],
    ['src/a/.git/HEAD', 'git'],
    ['vendor/lib/.git', 'git'],
    ['.husky/pre-commit', 'git'],
    ['.claude/settings.json', 'hook-settings'],
    ['.claude/settings.local.json', 'hook-settings'],
    ['.codex/config.toml', 'hook-settings'],
    ['.gemini/settings.json', 'hook-settings'],
    ['src/a/.claude/settings.json', 'hook-settings'],
    ['.claude/hooks/check.sh', 'agent-instructions'],
    ['.claude/agents/reviewer.md', 'agent-instructions'],
    ['.claude/commands/ship.md', 'agent-instructions'],
    ['.cursor/rules/style.mdc', 'agent-instructions'],
    ['.mcp.json', 'agent-instructions'],
    ['AGENTS.md', 'agent-instructions'],
    ['CLAUDE.md', 'agent-instructions'],
    ['AGENTS.override.md', 'agent-instructions'],
    ['CLAUDE.local.md', 'agent-instructions'],
    ['.claude/CLAUDE.md', 'agent-instructions'],
    ['.codex/CLAUDE.md', undefined],
    ['src/a.ts', undefined],
    ['.gitignore', undefined],
    ['.github/workflows/ci.yml', undefined],
    ['docs/AGENTS.md', undefined],
    ['.claude/notes.md', undefined],
    ['.claude-notes/wave-scope.json', undefined],
  ];
  for (const [path, kind] of concrete) {
    it(`controlStateOf(${path}) is ${kind ?? 'nothing'}`, () => assert.equal(controlStateOf(path)?.kind, kind));
  }

  it('folds case only when asked', () => {
    assert.equal(controlStateOf('.GIT/config'), undefined);
    assert.equal(controlStateOf('.GIT/config', { ignoreCase: true })?.kind, 'git');
  });

  it('counts the whole state directory being written to when given', () => {
    assert.equal(controlStateOf('.claude/notes.md', { stateDir: '.claude' })?.kind, 'state-dir');
    assert.equal(controlStateOf('.codex/notes.md', { stateDir: '.claude' }), undefined);
    assert.deepEqual(stateDirControlState('.claude/').map((control) => control.entry), ['.claude', '.claude/']);
  });
});

describe('controlState: findControlOverlap (table)', () => {
  // Each row: an entry, the state directory in use, and the kind of control state it can name (or none).
  const rows: Array<[entry: string, stateDir: string | undefined, kind: ControlStateKind | undefined]> = [
    // Issue 10 item 16: globs that name paths inside the state directory.
    ['{.claude,src}/x', '.claude', 'state-dir'],
    ['.clau[d]e/x', '.claude', 'state-dir'],
    ['.claude*/x', '.claude', 'state-dir'],
    ['.claude/**', '.claude', 'manifest'],
    ['.claude', '.claude', 'state-dir'],
    // ...and the grants the manifest validator took.
    ['.git/', undefined, 'git'],
    ['.claude/', undefined, 'manifest'],
    ['.claude/filescopes/wave-2/*.json', undefined, 'declarations'],
    ['.*/hooks.json', undefined, 'hook-settings'],
    ['[.]git/config', undefined, 'git'],
    ['{src,.husky}/pre-commit', undefined, 'git'],
    ['{**,.git}/x', undefined, 'git'],
    ['A*.md', undefined, 'agent-instructions'],
    ['.cursor/rules/', undefined, 'agent-instructions'],
    // Nothing of control state.
    ['src/', '.claude', undefined],
    ['.claude-notes/x.md', '.claude', undefined],
    ['.codex/notes.md', '.claude', undefined],
    ['{.claude,src}/x', undefined, undefined],
    ['.github/', undefined, undefined],
    ['.gitignore', undefined, undefined],
    ['docs/CLAUDE.md', undefined, undefined],
    // A wildcard never stands for the first character of a path.
    ['**', '.claude', undefined],
    ['**/*.test.ts', '.claude', undefined],
    ['*.md', undefined, undefined],
    ['*/hooks/pre-commit', undefined, undefined],
    ['?git/', undefined, undefined],
    ['[!a]git/', undefined, undefined],
  ];
  for (const [entry, stateDir, kind] of rows) {
    it(`${entry}${stateDir === undefined ? '' : ` (state dir ${stateDir})`} ${kind === undefined ? 'names no control state' : `can name ${kind}`}`, () => {
      const overlap = findControlOverlap(entry, { stateDir });
      assert.equal(overlap?.control.kind, kind);
      if (overlap !== undefined) {
        // The witness is a path both the entry and the control entry name.
        assert.ok(compileScopeEntry(normalizeScopeEntry(entry)).matches(overlap.witness), overlap.witness);
        assert.ok(compileScopeEntry(overlap.control.entry).matches(overlap.witness), overlap.witness);
      }
    });
  }

  it('folds case when asked', () => {
    assert.equal(findControlOverlap('.GIT/', {}), undefined);
    assert.equal(findControlOverlap('.GIT/', { ignoreCase: true })?.control.kind, 'git');
    assert.equal(findControlOverlap('.Claude/x', { ignoreCase: true, stateDir: '.claude' })?.control.kind, 'state-dir');
  });

  const inside: Array<[string, boolean]> = [
    ['.claude/**', true],
    ['.claude', true],
    ['.claude/filescopes/', true],
    ['{.claude,src}/x', false],
    ['.claude*/x', false],
  ];
  for (const [entry, expected] of inside) {
    it(`liesInsideStateDir(${entry}, .claude) is ${expected}`, () => assert.equal(liesInsideStateDir(entry, '.claude'), expected));
  }
});

describe('controlState: findControlOverlap against a brute-force oracle', () => {
  // Paths over the names control state is made of: every path of up to three of these segments.
  const segments = ['.git', '.claude', '.husky', 'hooks', 'filescopes', MANIFEST_FILE_NAME, 'settings.json', 'AGENTS.md', 'src', 'x'];
  const universe: string[] = [];
  let level = [''];
  for (let depth = 1; depth <= 3; depth += 1) {
    level = level.flatMap((prefix) => segments.map((segment) => (prefix === '' ? segment : `${prefix}/${segment}`)));
    universe.push(...level);
  }
  const stateDir = '.claude';
  const controls = [...CONTROL_STATE, ...stateDirControlState(stateDir)].map((control) => oracleMatcher(control.entry));
  const isControl = (path: string) => controls.some((matches) => matches(path));

  // The oracle: an alternative that spells its first character (no `*`, `?` or negated class first)
  // claims every control path it names.
  const oracleClaims = (entry: string) =>
    braceExpand(entry)
      .map((alternative) => normalizeScopeEntry(alternative))
      .filter((alternative) => !/^(?:[*?]|\[[!^])/.test(alternative))
      .some((alternative) => universe.some((path) => isControl(path) && oracleMatcher(alternative)(path)));

  const piece = fc.constantFrom('.git', '.claude', '.clau[d]e', '.cl*', '.*', '*', '**', '?git', 'hooks', 'x', 'src', 'h*', '{src,.claude}', '{x,.git}', 'AGENTS.md', '*.md', MANIFEST_FILE_NAME, 'wave-*.json');
  const entry = fc
    .tuple(fc.array(piece, { minLength: 1, maxLength: 3 }), fc.boolean())
    .map(([pieces, directory]) => `${pieces.join('/')}${directory ? '/' : ''}`);

  it('finds an overlap whenever the oracle finds a control path the entry claims, and its witness is real', () => {
    fc.assert(
      fc.property(entry, (raw) => {
        const spelling = normalizeScopeEntry(raw);
        const overlap = findControlOverlap(spelling, { stateDir });
        if (oracleClaims(spelling)) assert.notEqual(overlap, undefined, `${spelling} claims control state`);
        if (overlap !== undefined) {
          assert.ok(oracleMatcher(spelling)(overlap.witness), `${spelling} does not name ${overlap.witness}`);
          assert.ok(isControl(overlap.witness), `${overlap.witness} is not control state`);
        }
      }),
      { numRuns: 400 },
    );
  });
});
