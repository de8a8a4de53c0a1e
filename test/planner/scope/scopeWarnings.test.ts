import assert from 'node:assert/strict';
import { FileIndex } from '../../../src/planner/scope/fileIndex';
import { scopeEntryWarnings, scopeRecordWarnings } from '../../../src/planner/scope/scopeWarnings';
import type { ScopeEntryWarningReason } from '../../../src/planner/scope/scopeWarnings';

describe('scope warnings: typos the grammar accepts (docs/scope-grammar.md § 6)', () => {
  // Each row: an entry as written, the reasons of its warnings (in order), and what the first message must say.
  const rows: Array<[entry: string, reasons: ScopeEntryWarningReason[], says?: RegExp]> = [
    ['x/{a,}', ['empty-alternative'], /^scope entry "x\/\{a,\}" has an empty alternative between its braces, so it also names every file beneath x\/ \(remove the stray comma/],
    ['src/{,lib/}x.ts', ['empty-alternative'], /so it also names "src\/x\.ts"/],
    ['x/{a,}/{b,}', ['empty-alternative'], /also names every file beneath x\/a\/, "x\/b" and every file beneath x\/ /],
    ['{,b}', ['empty-alternative'], /which names nothing \(the entry means only its other alternatives\)$/],
    ['{a,,b}', ['empty-alternative'], /which names nothing/],
    ['src/[abc', ['unclosed-bracket'], /^scope entry "src\/\[abc" has an unclosed "\[" in "\[abc", which is read as a literal "\[", not as a set of characters$/],
    // Segments are split before brackets are read: `[a/b]` is the two segments `[a` and `b]`.
    ['src/[a/b].ts', ['unclosed-bracket'], /in "\[a"/],
    ['a/{b,[c}', ['unclosed-bracket'], /in "\[c"/],
    ['src/**/*.{ts', ['unclosed-brace'], /^scope entry "src\/\*\*\/\*\.\{ts" has an unclosed "\{" in "\*\.\{ts", which is read as a literal "\{", not as a list of alternatives$/],
    ['{{a,b}', ['unclosed-brace'], /in "\{\{a,b\}"/],
    ['x/{a,}/[b/{c', ['empty-alternative', 'unclosed-bracket', 'unclosed-brace']],
    // Nothing to warn about: ordinary entries, a comma-less brace (a literal name), a `$`-brace (literal in minimatch).
    ['src/a.ts', []],
    ['src/{a,b}.ts', []],
    ['src/{a}.ts', []],
    ['${,a}', []],
    ['src/[ab].ts', []],
    // Rejected entries get no warning: their error says more.
    ['{,}', []],
    ['../{a,}', []],
  ];
  for (const [entry, reasons, says] of rows) {
    it(`${entry}: ${reasons.length === 0 ? 'no warning' : reasons.join(', ')}`, () => {
      const warnings = scopeEntryWarnings(entry);
      assert.deepEqual(
        warnings.map((warning) => warning.reason),
        reasons,
      );
      for (const warning of warnings) {
        assert.equal(warning.entry, entry);
        assert.match(warning.message, /^scope entry /);
        assert.doesNotMatch(warning.message, /^(ERROR|WARNING)|\n$/);
      }
      if (says !== undefined) assert.match(warnings[0]?.message ?? '', says);
    });
  }

  it('reads a backslash as a separator, as the grammar does', () => {
    assert.deepEqual(
      scopeEntryWarnings('src\\[a\\b').map((warning) => warning.reason),
      ['unclosed-bracket'],
    );
  });

  describe('matches-nothing, when the known files are given', () => {
    const files = new FileIndex(['src/a.ts', 'src/lib/b.ts', 'Docs/Guide.md']);
    const rows: Array<[entry: string, warns: boolean, ignoreCase?: boolean]> = [
      ['src/**/*.tsx', true],
      ['src/**/*.ts', false],
      ['src/*.ts', false],
      ['{src,lib}/x/*', true],
      // A plain path may be a file the wave creates: never "matches nothing".
      ['src/new.ts', false],
      ['lib/', true],
      ['docs/*.md', true],
      ['docs/*.md', false, true],
    ];
    for (const [entry, warns, ignoreCase] of rows) {
      it(`${entry}${ignoreCase ? ' (ignore case)' : ''}: ${warns ? 'warns' : 'no warning'}`, () => {
        const index = ignoreCase ? new FileIndex(files.files, { ignoreCase: true }) : files;
        const warnings = scopeEntryWarnings(entry, { files: index, ignoreCase });
        assert.deepEqual(
          warnings.map((warning) => warning.reason),
          warns ? ['matches-nothing'] : [],
        );
        if (warns) assert.equal(warnings[0]?.message, `scope entry ${JSON.stringify(entry)} names none of the files the repository has today`);
      });
    }
    it('is never given without the files', () => {
      assert.deepEqual(scopeEntryWarnings('src/**/*.tsx'), []);
    });
  });

  it('finds the warnings of every string entry of a record array, skipping what validation reports', () => {
    const found = scopeRecordWarnings([{ id: 'api', files: ['x/{a,}', 3, 'src/a.ts'] }, { files: ['src/[a'] }, 'junk', { id: 'ui', files: 'src/' }, null]);
    assert.deepEqual(
      found.map(({ record, warning }) => [record, warning.entry, warning.reason]),
      [
        ['api', 'x/{a,}', 'empty-alternative'],
        ['#2', 'src/[a', 'unclosed-bracket'],
      ],
    );
    assert.deepEqual(scopeRecordWarnings({ not: 'an array' }), []);
  });
});
