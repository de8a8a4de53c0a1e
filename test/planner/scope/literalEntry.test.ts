// The entry that names a file as it is named: table-driven examples, and a property test against the
// engine itself (the entry names the file, and nothing else unless it had to say `?`).
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isNameable, literalEntryOf, unnameableNotice } from '../../../src/planner/scope/literalEntry';
import { compileScopeEntry, normalizeScopeEntry } from '../../../src/planner/scope/scopeEntry';

function names(entry: string, path: string): boolean {
  return compileScopeEntry(normalizeScopeEntry(entry)).matches(path);
}

describe('literalEntryOf: the entry that names exactly one file', () => {
  const rows: Array<[path: string, entry: string, lookAlike?: string]> = [
    ['src/a.ts', 'src/a.ts'],
    ['src/a[1].ts', 'src/a[[]1].ts', 'src/a1.ts'],
    ['src/*.ts', 'src/[*].ts', 'src/b.ts'],
    ['src/what?.md', 'src/what[?].md', 'src/whatx.md'],
    ['docs/[draft] notes.md', 'docs/[[]draft] notes.md', 'docs/d notes.md'],
    ['x/+(a).ts', 'x/+[(]a).ts'],
    ['x/@(a|b).ts', 'x/@[(]a|b).ts', 'x/a.ts'],
    ['x/!(a).ts', 'x/![(]a).ts'],
    ['a{b.ts', 'a{b.ts'],
    ['a{b}.ts', 'a{b}.ts'],
    // No class names these: `?` names the file and its look-alikes at that one character.
    ['a{b,c}.ts', 'a?b,c}.ts', 'ab.ts'],
    ['a{1..3}', 'a?1..3}', 'a2'],
    ['!x.ts', '?x.ts'],
    ['café/naïve file.ts', 'café/naïve file.ts'],
    // The planner trims and unquotes what it is given; a name's own spaces and quotes survive that.
    [' lead.ts', '[ ]lead.ts'],
    ['trail.ts ', 'trail.ts[ ]'],
    ['"quoted"', '["]quoted"'],
    [' ', '[ ]'],
  ];
  for (const [path, entry, lookAlike] of rows) {
    it(`${JSON.stringify(path)} → ${JSON.stringify(entry)}`, () => {
      assert.equal(literalEntryOf(path), entry);
      assert.equal(normalizeScopeEntry(entry), entry, 'the entry is already normalised');
      assert.equal(names(entry, path), true, 'the entry names the file');
      // The look-alike a bare name (a glob) would claim instead of, or beside, the file.
      if (lookAlike !== undefined) assert.equal(names(entry, lookAlike), false, `${entry} does not name ${lookAlike}`);
    });
  }

  // The grammar reads `\` as `/` before anything else, so no entry names such a file: written as it is,
  // `x\..\..\src\` would be the entry `src/` (found by red-team review, 2026-12-06).
  for (const path of ['fixtures/x\\..\\..\\src\\', 'a\\b.ts', 'docs/readme\\..\\..\\.github\\', 'tests/t\\..\\..\\src\\index.ts', '\\']) {
    it(`${JSON.stringify(path)}: no entry names it`, () => {
      assert.equal(isNameable(path), false);
      assert.equal(literalEntryOf(path), undefined);
      assert.equal(literalEntryOf(path, { folder: true }), undefined);
      assert.match(unnameableNotice([path]), /backslash/);
    });
  }

  it('a folder: every file beneath it, and nothing beside it', () => {
    const entry = literalEntryOf('dir [x]', { folder: true });
    assert.equal(entry, 'dir [[]x]/');
    assert.equal(names(entry, 'dir [x]/a.ts'), true);
    assert.equal(names(entry, 'dir x/a.ts'), false);
  });

  it('names the file, and no other path unless it said `?` (property, against the engine)', () => {
    const character = fc.constantFrom(...'ab.-_ *?[]{},()!@+#~é"\'\\'.split(''));
    const segment = fc
      .array(character, { minLength: 1, maxLength: 8 })
      .map((characters) => characters.join(''))
      .filter((text) => text !== '.' && text !== '..');
    const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((segments) => segments.join('/'));
    fc.assert(
      fc.property(path, path, (file, other) => {
        const entry = literalEntryOf(file);
        assert.equal(entry === undefined, file.includes('\\'), `${JSON.stringify(file)} has an entry exactly when it holds no backslash`);
        if (entry === undefined) return;
        // What the planner's input does to an entry first (webview/plannerState.ts normalizeEntry).
        assert.equal(entry.trim().replace(/^(["'])(.*)\1$/, '$2'), entry);
        const compiled = compileScopeEntry(normalizeScopeEntry(entry));
        assert.equal(compiled.matches(file), true, `${entry} names ${file}`);
        const exact = !entry.replace(/\[.\]/g, '').includes('?');
        if (exact) assert.equal(compiled.matches(other), other === file, `${entry} names ${other}`);
      }),
      { numRuns: 3000 },
    );
  });
});
