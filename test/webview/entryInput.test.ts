// Issue 14, bugs 8 and 9 as state logic: an absolute path inside the repository (Explorer's Copy Path) is
// made relative, one outside it is refused with the reason (and the lane's input keeps the text: the
// check says what is wrong, it never clears anything); an entry that is probably a typo gets an inline
// warning (issue 9's reasons).
import assert from 'node:assert/strict';
import { checkEntry } from '../../webview/entryInput';
import { entryWarnings } from '../../webview/entryWarnings';
import type { EntryWarningReason } from '../../webview/entryWarnings';
import { MatchCache } from '../../webview/planAnalysis';
import { initialState, normalizeEntry, reduce, selectedWave } from '../../webview/plannerState';
import type { AbsoluteRoot } from '../../webview/plannerState';
import { FileIndex } from '../../src/planner/scope/fileIndex';

const files = ['README.md', 'src/a.ts', 'src/ui/App.tsx', 'src/ui/Cart.tsx', 'docs/guide.md', 'packages/web/index.ts'];
const roots: AbsoluteRoot[] = [
  { path: '/home/ana/shop', repoRelative: '' },
  // The workspace folder opened through a symbolic link to packages/web.
  { path: '/home/ana/web-link', repoRelative: 'packages/web' },
];

describe('absolute paths typed or pasted into a lane (issue 14, bug 8)', () => {
  const cases: { typed: string; entry?: string; problem?: RegExp; roots?: AbsoluteRoot[]; ignoreCase?: boolean }[] = [
    { typed: '/home/ana/shop/src/a.ts', entry: 'src/a.ts' },
    { typed: '/home/ana/shop/src/ui/', entry: 'src/ui/' },
    { typed: '"/home/ana/shop/src/a.ts"', entry: 'src/a.ts' },
    { typed: 'file:///home/ana/shop/docs/guide.md', entry: 'docs/guide.md' },
    { typed: 'file:///home/ana/shop/my%20notes.md', entry: 'my notes.md' },
    { typed: '/home/ana/shop/src/../docs/guide.md', entry: 'docs/guide.md' },
    { typed: '/home/ana/web-link/index.ts', entry: 'packages/web/index.ts' },
    { typed: '/home/ana/other/x.ts', problem: /outside the repository root/ },
    { typed: '/home/ana/shop', problem: /names the repository root/ },
    { typed: '/home/ana/shop/../etc/passwd', problem: /outside the repository root|climbs out/ },
    { typed: '/etc/passwd', problem: /absolute path/, roots: [] },
    { typed: 'C:\\Users\\ana\\shop\\src\\a.ts', entry: 'src/a.ts', roots: [{ path: 'C:/Users/ana/shop', repoRelative: '' }] },
    { typed: 'c:\\users\\ANA\\shop\\src\\a.ts', entry: 'src/a.ts', roots: [{ path: 'C:/Users/ana/shop', repoRelative: '' }], ignoreCase: true },
  ];
  for (const { typed, entry, problem, ignoreCase, ...rest } of cases) {
    it(`${typed} ${entry ? `becomes ${entry}` : 'is refused with a reason'}`, () => {
      const result = normalizeEntry(typed, { ignoreCase, absoluteRoots: rest.roots ?? roots });
      if (entry) {
        assert.ok('entry' in result, JSON.stringify(result));
        assert.equal(result.entry, entry);
        assert.match(result.note ?? '', /Made relative to the repository/);
      } else {
        assert.ok('problem' in result, JSON.stringify(result));
        assert.match(result.problem, problem as RegExp);
      }
    });
  }

  it('through the reducer: the relative entry joins the lane', () => {
    let state = reduce(initialState(), { type: 'addAgent', wave: 1, id: 'api' });
    state = reduce(state, { type: 'addEntries', wave: 1, agentId: 'api', entries: ['/home/ana/shop/src/a.ts'] }, { absoluteRoots: roots });
    assert.deepEqual(selectedWave(state)?.agents[0]?.entries, ['src/a.ts']);
    assert.equal(state.notice, undefined);
  });
});

describe('the lane input check (inline validation)', () => {
  const cache = new MatchCache(files);
  const context = { cache, absoluteRoots: roots, controlFiles: new Set(['.claude/wave-scope.json', '.claude/settings.json', 'AGENTS.md']), existing: ['docs/'], agent: 'api' };

  it('says why an entry cannot be used, and changes nothing (the input keeps its text)', () => {
    const result = checkEntry('/elsewhere/x.ts', context);
    assert.equal(result.ok, false);
    assert.match(!result.ok ? result.problem : '', /outside the repository root/);
  });

  it('a folder typed without its slash becomes the folder, with a note', () => {
    const result = checkEntry('src/ui', context);
    assert.ok(result.ok);
    assert.equal(result.entry, 'src/ui/');
    assert.match(result.notes.join(' '), /src\/ui is a folder/);
  });

  it('an absolute path is accepted with the note that it was made relative', () => {
    const result = checkEntry('/home/ana/shop/src/a.ts', context);
    assert.ok(result.ok);
    assert.equal(result.entry, 'src/a.ts');
    assert.match(result.notes.join(' '), /Made relative/);
  });

  it('control state is refused: no agent can own it', () => {
    for (const typed of ['.claude/wave-scope.json', '.claude/', 'AGENTS.md']) {
      const result = checkEntry(typed, context);
      assert.equal(result.ok, false, typed);
      assert.match(!result.ok ? result.problem : '', /control state/);
    }
  });

  it('an entry the lane already has is said so', () => {
    const result = checkEntry('./docs/', context);
    assert.equal(result.ok, false);
    assert.match(!result.ok ? result.problem : '', /already in api/);
  });

  it('a typo is accepted with its warnings', () => {
    const result = checkEntry('src/**/*.{ts', context);
    assert.ok(result.ok);
    assert.deepEqual(result.warnings.map((warning) => warning.reason).sort(), ['matches-nothing', 'unclosed-brace']);
  });
});

describe('typo warnings at an entry (issue 14, bug 9; issue 9)', () => {
  const index = new FileIndex(files);
  const cases: { entry: string; reasons: EntryWarningReason[] }[] = [
    { entry: 'src/[abc', reasons: ['unclosed-bracket'] },
    { entry: 'src/**/*.{ts', reasons: ['unclosed-brace', 'matches-nothing'] },
    { entry: 'src/{a.ts,}', reasons: ['empty-alternative'] },
    { entry: 'src/{,ui/}', reasons: ['empty-alternative'] },
    { entry: 'src/{a,,b}.ts', reasons: ['empty-alternative'] },
    { entry: 'lib/**/*.ts', reasons: ['matches-nothing'] },
    { entry: 'src/**/*.ts', reasons: [] },
    { entry: 'src/{ui,api}/**', reasons: [] },
    { entry: 'src/[au]*.ts', reasons: [] },
    { entry: 'src/new-file.ts', reasons: [] },
    { entry: '../outside', reasons: [] },
  ];
  for (const { entry, reasons } of cases) {
    it(`${entry}: ${reasons.length === 0 ? 'no warning' : reasons.join(', ')}`, () => {
      const warnings = entryWarnings(entry, { files: index });
      assert.deepEqual(warnings.map((warning) => warning.reason).sort(), [...reasons].sort());
      for (const warning of warnings) assert.ok(warning.message.includes(JSON.stringify(entry)), `${warning.message} names the entry`);
    });
  }

  it('without the file list, only what the spelling shows', () => {
    assert.deepEqual(entryWarnings('lib/**/*.ts').map((warning) => warning.reason), []);
  });
});
