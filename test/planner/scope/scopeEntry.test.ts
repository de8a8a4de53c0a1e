import assert from 'node:assert/strict';
import { compileScopeEntry, normalizeScopeEntry, parseScopeEntry, ScopeEntryError } from '../../../src/planner/scope/scopeEntry';
import type { ScopeEntryErrorReason } from '../../../src/planner/scope/scopeEntry';

describe('scope grammar: normalisation', () => {
  const spellings: Array<[raw: string, normalised: string]> = [
    ['src/a.ts', 'src/a.ts'],
    ['./src/a.ts', 'src/a.ts'],
    ['src//a.ts', 'src/a.ts'],
    ['src///a.ts', 'src/a.ts'],
    ['src/./a.ts', 'src/a.ts'],
    ['src/../lib/a.ts', 'lib/a.ts'],
    ['src/x/y/../../a.ts', 'src/a.ts'],
    ['src\\lib\\a.ts', 'src/lib/a.ts'],
    ['.\\src\\\\a.ts', 'src/a.ts'],
    ['src/', 'src/'],
    ['src//', 'src/'],
    ['src/.', 'src/'],
    ['src/lib/..', 'src/'],
    ['src/**', 'src/**'],
    ['src/**/', 'src/**'],
    ['src/**/**/a.ts', 'src/**/a.ts'],
    ['**/**', '**'],
    ['*.md', '*.md'],
    ['{src,lib}/a.ts', '{src,lib}/a.ts'],
    ['./{src,lib/core}/a.ts', '{src,lib/core}/a.ts'],
    ['.github/workflows/ci.yml', '.github/workflows/ci.yml'],
    ['a b/c d.ts', 'a b/c d.ts'],
  ];
  for (const [raw, normalised] of spellings) {
    it(`${JSON.stringify(raw)} → ${JSON.stringify(normalised)}`, () => {
      assert.equal(normalizeScopeEntry(raw), normalised);
      // Normalisation is idempotent.
      assert.equal(normalizeScopeEntry(normalised), normalised);
    });
  }

  const absolute: Array<[raw: string, root: string, normalised: string]> = [
    ['/repo/src/a.ts', '/repo', 'src/a.ts'],
    ['/repo/src/', '/repo/', 'src/'],
    ['/repo/./src/../lib/a.ts', '/repo', 'lib/a.ts'],
    ['C:\\work\\repo\\src\\a.ts', 'C:\\work\\repo', 'src/a.ts'],
  ];
  for (const [raw, root, normalised] of absolute) {
    it(`absolute ${JSON.stringify(raw)} inside ${root} → ${JSON.stringify(normalised)}`, () => {
      assert.equal(normalizeScopeEntry(raw, { repoRoot: root }), normalised);
    });
  }

  it('folds the root comparison of absolute entries in ignore-case mode only', () => {
    assert.equal(normalizeScopeEntry('/Repo/src/a.ts', { repoRoot: '/repo', ignoreCase: true }), 'src/a.ts');
    assert.throws(() => normalizeScopeEntry('/Repo/src/a.ts', { repoRoot: '/repo' }), /outside the repository root/);
  });

  const rejected: Array<[raw: unknown, reason: ScopeEntryErrorReason, says: RegExp, options?: { repoRoot?: string }]> = [
    ['', 'empty', /is empty/],
    ['   ', 'empty', /is empty/],
    [42, 'not-a-string', /not a string/],
    ['src/a\0.ts', 'control-character', /NUL, carriage return or line feed/],
    ['src/a\n.ts', 'control-character', /NUL/],
    ['src/a\r.ts', 'control-character', /NUL/],
    ['../a.ts', 'escapes-root', /climbs out of the repository/],
    ['src/../../a.ts', 'escapes-root', /climbs out/],
    ['{..,src}/a.ts', 'escapes-root', /alternative "\.\.\/a\.ts"/],
    ['.', 'names-root', /names the repository root itself: write \*\*/],
    ['./', 'names-root', /repository root/],
    ['src/..', 'names-root', /repository root/],
    ['/etc/passwd', 'absolute-outside-root', /absolute path outside the repository root \/repo/, { repoRoot: '/repo' }],
    ['/repository/a.ts', 'absolute-outside-root', /outside the repository root/, { repoRoot: '/repo' }],
    ['/repo/../etc/a', 'absolute-outside-root', /outside/, { repoRoot: '/repo' }],
    ['/src/a.ts', 'absolute-outside-root', /no repository root is known/],
    ['!src/a.ts', 'negation', /allow-lists/],
    ['src/@(a|b).ts', 'extglob', /write a brace list \{a,b\}/],
    ['src/!(a).ts', 'extglob', /extglob/],
    ['src/+(a).ts', 'extglob', /extglob/],
    ['src/*(a).ts', 'extglob', /extglob/],
    ['src/?(a).ts', 'extglob', /extglob/],
    ['src/[[:alpha:]].ts', 'posix-class', /\[a-zA-Z\]/],
    ['{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}{s,t}{u,v}', 'too-many-alternatives', /more than 1024 alternatives/],
  ];
  for (const [raw, reason, says, options] of rejected) {
    it(`rejects ${JSON.stringify(raw)} (${reason})`, () => {
      assert.throws(
        () => normalizeScopeEntry(raw, options),
        (error: unknown) => {
          assert.ok(error instanceof ScopeEntryError);
          assert.equal(error.reason, reason);
          assert.match(error.message, says);
          assert.match(error.message, /^scope entry /);
          return true;
        },
      );
    });
  }
});

describe('scope grammar: what an entry names', () => {
  const cases: Array<[entry: string, kind: 'plain' | 'glob', matches: string[], misses: string[]]> = [
    ['src/a.ts', 'plain', ['src/a.ts'], ['src/a.tsx', 'src/a.ts/x', 'a.ts']],
    ['src/', 'glob', ['src/a', 'src/a/b/c.ts', 'src/.env'], ['src', 'srcx/a', 'lib/src/a']],
    ['src/**', 'glob', ['src/a', 'src/a/b'], ['src']],
    ['*.md', 'glob', ['README.md', '.hidden.md'], ['docs/a.md']],
    ['**/*.md', 'glob', ['README.md', 'docs/a.md', 'a/b/c/d.md'], ['README.mdx']],
    ['src/*.ts', 'glob', ['src/a.ts', 'src/.ts'], ['src/a/b.ts', 'src/a.tsx']],
    ['src/?.ts', 'glob', ['src/a.ts'], ['src/ab.ts', 'src/.ts/']],
    ['src/[ab].ts', 'glob', ['src/a.ts', 'src/b.ts'], ['src/c.ts']],
    ['src/[!ab].ts', 'glob', ['src/c.ts'], ['src/a.ts']],
    ['src/[^ab].ts', 'glob', ['src/c.ts'], ['src/a.ts']],
    ['src/[a-c].ts', 'glob', ['src/b.ts'], ['src/d.ts']],
    ['src/[]a].ts', 'glob', ['src/].ts', 'src/a.ts'], ['src/b.ts']],
    ['src/[a-].ts', 'glob', ['src/a.ts', 'src/-.ts'], ['src/b.ts']],
    ['src/[abc.ts', 'plain', ['src/[abc.ts'], ['src/a.ts']],
    ['src/{a,b/c}.ts', 'glob', ['src/a.ts', 'src/b/c.ts'], ['src/b.ts']],
    ['src/{a,{b,c}x}.ts', 'glob', ['src/a.ts', 'src/bx.ts', 'src/cx.ts'], ['src/x.ts']],
    ['src/x{1..3}.ts', 'glob', ['src/x2.ts'], ['src/x4.ts']],
    ['src/{a}.ts', 'plain', ['src/{a}.ts'], ['src/a.ts']],
    ['src/**/index.ts', 'glob', ['src/index.ts', 'src/a/b/index.ts'], ['index.ts']],
    ['src/a**b.ts', 'glob', ['src/ab.ts', 'src/axxb.ts'], ['src/a/b.ts']],
    ['**', 'glob', ['a', 'a/b/c'], []],
  ];
  for (const [entry, kind, matches, misses] of cases) {
    it(`${entry} is ${kind}, names ${matches.join(', ')}${misses.length > 0 ? ` but not ${misses.join(', ')}` : ''}`, () => {
      const compiled = compileScopeEntry(normalizeScopeEntry(entry));
      assert.equal(compiled.kind, kind);
      for (const path of matches) assert.equal(compiled.matches(path), true, `${entry} should name ${path}`);
      for (const path of misses) assert.equal(compiled.matches(path), false, `${entry} should not name ${path}`);
    });
  }

  it('compares case-sensitively by default and folds case in ignore-case mode', () => {
    assert.equal(compileScopeEntry('src/Readme.md').matches('src/README.md'), false);
    assert.equal(compileScopeEntry('src/Readme.md', { ignoreCase: true }).matches('SRC/README.md'), true);
    assert.equal(compileScopeEntry('src/[A-C]*.ts', { ignoreCase: true }).matches('src/bee.ts'), true);
    assert.equal(compileScopeEntry('src/[!A]*.ts', { ignoreCase: true }).matches('src/apple.ts'), false);
    assert.equal(compileScopeEntry('src/[!A-Z].ts', { ignoreCase: true }).matches('src/q.ts'), false);
    assert.equal(compileScopeEntry('src/[!A-Z].ts', { ignoreCase: true }).matches('src/_.ts'), true);
  });

  it('records the literal directory prefix every named path starts with', () => {
    assert.deepEqual(parseScopeEntry('src/lib/*.ts').literalPrefix, ['src', 'lib']);
    assert.deepEqual(parseScopeEntry('src/{a,b}/x.ts').literalPrefix, ['src']);
    assert.deepEqual(parseScopeEntry('{src,lib}/x.ts').literalPrefix, []);
    assert.deepEqual(parseScopeEntry('src/a.ts').literalPrefix, ['src', 'a.ts']);
    assert.deepEqual(parseScopeEntry('SRC/*.ts', { ignoreCase: true }).literalPrefix, ['src']);
  });
});
