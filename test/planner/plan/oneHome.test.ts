// One home for each piece of knowledge (issue 8): the state-dir names, the declaration paths, the
// agent-id rule and the case fold each live in one module. These tests read the sources and the
// extension manifest and fail when a copy reappears where it can be detected.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { MANIFEST_FILE_NAME, STATE_DIR_NAMES } from '../../../src/planner/plan/stateDirNames';

const root = join(__dirname, '..', '..', '..');

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path));
    else if (name.endsWith('.ts')) files.push(path);
  }
  return files;
}

/** Every line of code (comment lines dropped) of src/ and webview/, with its place. */
const codeLines = [...sourceFiles(join(root, 'src')), ...sourceFiles(join(root, 'webview'))].flatMap((path) => {
  const file = relative(root, path).split(sep).join('/');
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((text, index) => ({ file, line: index + 1, text }))
    .filter(({ text }) => !/^\s*(?:\/\/|\/\*|\*)/.test(text));
});

function offenders(test: (text: string) => boolean, homes: readonly string[]): string[] {
  return codeLines.filter(({ file, text }) => !homes.includes(file) && test(text)).map(({ file, line, text }) => `${file}:${line}: ${text.trim()}`);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// A state-dir name standing alone (a list item, a brace alternative, a word in a sentence), not the first
// segment of a longer path such as `.claude/settings.json`.
const bareName = STATE_DIR_NAMES.map((name) => new RegExp(`(?<![\\w.-])${escape(name)}(?![\\w/-])`));

describe('one home: the state-dir names (src/planner/plan/stateDirNames.ts)', () => {
  it('no line of code outside their home lists two of them', () => {
    const lists = offenders((text) => bareName.filter((pattern) => pattern.test(text)).length >= 2, ['src/planner/plan/stateDirNames.ts']);
    assert.deepEqual(lists, []);
  });

  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  it('package.json activates on exactly each state directory\'s manifest and aggregates', () => {
    const events = (pkg.activationEvents as string[]).filter((event) => event.startsWith('workspaceContains:')).sort();
    const expected = STATE_DIR_NAMES.flatMap((name) => [`workspaceContains:${name}/${MANIFEST_FILE_NAME}`, `workspaceContains:${name}/filescopes/*.scopes.json`]).sort();
    assert.deepEqual(events, expected);
  });
  it('package.json validates exactly each state directory\'s manifest against the schema', () => {
    const [validation] = pkg.contributes.jsonValidation as Array<{ fileMatch: string[] }>;
    assert.deepEqual([...(validation?.fileMatch ?? [])].sort(), STATE_DIR_NAMES.map((name) => `**/${name}/${MANIFEST_FILE_NAME}`).sort());
  });
  it('the stateDirectory setting offers "auto" and exactly the state directories', () => {
    const setting = pkg.contributes.configuration.properties['waveScope.plan.stateDirectory'];
    assert.deepEqual([...setting.enum].sort(), ['auto', ...STATE_DIR_NAMES].sort());
  });
  it('the settings that describe the state directories name each of them', () => {
    const described = pkg.contributes.configuration.properties['waveScope.planner.openOnStartup'].markdownDescription as string;
    for (const name of STATE_DIR_NAMES) assert.ok(described.includes(`\`${name}\``), `${name} missing from openOnStartup's description`);
  });
});

describe('one home: the declaration paths (src/planner/plan/declarationPaths.ts)', () => {
  // Sentences for people (messages.ts) may name the layout; code builds it through the builders.
  const homes = ['src/planner/plan/stateDirNames.ts', 'src/planner/plan/declarationPaths.ts', 'src/cli/messages.ts'];
  const handBuilt: Array<[string, RegExp]> = [
    ['a filescopes path', /['"`/]filescopes['"`/]/],
    ['a wave directory or sidecar name', /wave-\$\{|\.scopes\.json/],
    ['the manifest file name', /['"`/]wave-scope\.json['"`]/],
    ['the launcher file name', /wave-scope-hook\.cjs/],
  ];
  for (const [what, pattern] of handBuilt) {
    it(`no code outside the path builders spells ${what}`, () => assert.deepEqual(offenders((text) => pattern.test(text), homes), []));
  }
});

describe('one home: the agent-id rule (src/planner/plan/agentId.ts)', () => {
  it('no code outside agentId.ts spells the id pattern', () => {
    assert.deepEqual(offenders((text) => text.includes('[A-Za-z0-9][A-Za-z0-9_-]'), ['src/planner/plan/agentId.ts']), []);
  });
});

describe('one home: case folding (foldCase, src/planner/scope/scopeEntry.ts)', () => {
  it('no code calls toLowerCase or toLocaleLowerCase except the folding functions themselves', () => {
    const calls = codeLines.filter(({ text }) => /\.to(?:Locale)?LowerCase\(/.test(text));
    const home = readFileSync(join(root, 'src/planner/scope/scopeEntry.ts'), 'utf8').split('\n');
    // The lines (1-based) of the bodies of foldCase, foldUnit (the fold of one code unit) and hasUnfoldableLetter.
    const bodies = ['export function foldCase(', 'export function foldUnit(', 'export function hasUnfoldableLetter('].map((opening) => {
      const start = home.findIndex((text) => text.startsWith(opening));
      assert.ok(start >= 0, opening);
      return { first: start + 2, last: start + home.slice(start).findIndex((text) => text === '}') + 1 };
    });
    const inBody = (line: number) => bodies.some(({ first, last }) => line >= first && line <= last);
    const strays = calls.filter(({ file, line }) => !(file === 'src/planner/scope/scopeEntry.ts' && inBody(line)));
    assert.deepEqual(strays.map(({ file, line, text }) => `${file}:${line}: ${text.trim()}`), []);
    // The scan sees the calls it allows, so it is looking at the right lines.
    assert.ok(calls.length - strays.length >= 3);
  });
});

describe('one home: the orchestration directory (src/planner/plan/stateDirNames.ts)', () => {
  it('no line of code outside its home spells .orchestrator as a string', () => {
    assert.deepEqual(offenders((text) => /['"`/]\.orchestrator\b/.test(text), ['src/planner/plan/stateDirNames.ts']), []);
  });
});
