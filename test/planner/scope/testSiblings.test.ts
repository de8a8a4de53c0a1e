import assert from 'node:assert/strict';
import { expandTestSiblings } from '../../../src/planner/scope/testSiblings';

describe('expandTestSiblings', () => {
  it('adds the test siblings of plain production files for a role that writes code', () => {
    assert.deepEqual(expandTestSiblings(['src/cart/total.ts', 'README.md'], { role: 'Implementation' }), [
      'src/cart/total.ts',
      'README.md',
      'src/cart/total.test.ts',
      'src/cart/total.spec.ts',
      'src/cart/__tests__/total.ts',
      'src/cart/__tests__/total.test.ts',
      'test/**/total.test.ts',
      'tests/**/total.test.ts',
    ]);
  });

  it('spells top-level siblings without a leading slash, and handles Python', () => {
    assert.deepEqual(expandTestSiblings(['tool.py'], { role: 'fix' }), ['tool.py', 'test_tool.py', 'tests/**/test_tool.py']);
  });

  it('leaves globs, directories, test files and names with glob characters alone', () => {
    const entries = ['src/**/*.ts', 'src/lib/', 'src/a.test.ts', 'src/__tests__/b.ts', 'src/[x].ts'];
    assert.deepEqual(expandTestSiblings(entries, { role: 'implementation' }), entries);
  });

  it('fills a rule\'s spellings exactly as placeholder replacement would, the root\'s leading {dir}/ dropped and any other {dir} kept there', () => {
    // The reading the compiled spellings must keep: {name} and {ext} replaced, then a leading {dir}/ dropped
    // at the root, every {dir} replaced elsewhere (no file name with a brace gets siblings at all).
    const byReplacement = (template: string, path: string) => {
      const slash = path.lastIndexOf('/');
      const dir = slash === -1 ? '' : path.slice(0, slash);
      const file = path.slice(slash + 1);
      const name = file.slice(0, file.lastIndexOf('.'));
      const ext = file.slice(file.lastIndexOf('.') + 1);
      const filled = template.replaceAll('{name}', name).replaceAll('{ext}', ext);
      return dir === '' ? filled.replace(/^\{dir\}\//, '') : filled.replaceAll('{dir}', dir);
    };
    const siblings = ['{dir}/{name}.test.{ext}', '{dir}/x/{dir}/{name}.{ext}', 'spec/{dir}/{name}{ext}', '{dir}/', '{name}', '{dir}{name}.{ext}', 'a/{dir}', '{ext}/{ext}/{name}', 'plain'];
    const rules = [{ roles: ['r'], extensions: ['ts'], siblings }];
    for (const path of ['a.ts', 'src/a.ts', 'src/deep/cart.total.ts', 'x/y/z/w.ts']) {
      const expected = [...new Set([path, ...siblings.map((template) => byReplacement(template, path))])];
      assert.deepEqual(expandTestSiblings([path], { role: 'r', rules }), expected, path);
    }
  });

  it('adds nothing for a role no rule names', () => {
    assert.deepEqual(expandTestSiblings(['src/a.ts'], { role: 'discovery' }), ['src/a.ts']);
  });

  it('is idempotent', () => {
    const once = expandTestSiblings(['src/a.ts', 'lib/b.mjs'], { role: 'implementation' });
    assert.deepEqual(expandTestSiblings(once, { role: 'implementation' }), once);
  });

  it('takes its rules as data', () => {
    const rules = [{ roles: ['docs'], extensions: ['md'], siblings: ['{dir}/{name}.de.{ext}'] }];
    assert.deepEqual(expandTestSiblings(['docs/guide.md'], { role: 'docs', rules }), ['docs/guide.md', 'docs/guide.de.md']);
  });

  describe('namedLike: only the entries that may have a sibling of one last segment', () => {
    const lastSegment = (path: string) => path.slice(path.lastIndexOf('/') + 1);
    // The comparison the write gate makes of a sibling's last segment with the target's.
    const sameName = (a: string, b: string, ignoreCase: boolean) => {
      const fold = (text: string) => (ignoreCase ? text.normalize('NFC').toLowerCase() : text.normalize('NFC'));
      return fold(a) === fold(b);
    };
    const entries = [
      'src/a/total.ts',
      'src/b/Total.ts',
      'lib/tool.py',
      'src/c/subtotal.mjs',
      'src/d/\u212Aey.ts',
      'src/e/ΟΔΟΣ.ts',
      'src/f/e\u0301t\u00e9.ts',
      'README.md',
      'src/g/',
    ];
    const segments = ['total.test.ts', 'TOTAL.spec.ts', 'Total.ts', 'test_tool.py', 'subtotal.test.mjs', 'key.test.ts', 'Key.test.ts', 'οδος.test.ts', 'οδοσ.test.ts', 'ΟΔΟΣ.ts', '\u00e9t\u00e9.test.ts', 'other.test.ts', 'total'];

    it('finds every sibling of that last segment the whole expansion finds, case-folded or not', () => {
      for (const ignoreCase of [false, true]) {
        const whole = expandTestSiblings(entries, { role: 'implementation' });
        for (const segment of segments) {
          const filtered = expandTestSiblings(entries, { role: 'implementation', namedLike: { lastSegment: segment, ignoreCase } });
          const named = (list: string[]) => list.filter((entry) => !entries.includes(entry) && sameName(lastSegment(entry), segment, ignoreCase));
          assert.deepEqual(named(filtered), named(whole), `${segment} (ignoreCase ${ignoreCase})`);
        }
      }
    });

    it('leaves unexpanded an entry whose file name the segment does not contain', () => {
      const filtered = expandTestSiblings(entries, { role: 'implementation', namedLike: { lastSegment: 'total.test.ts' } });
      assert.ok(filtered.includes('test/**/total.test.ts'));
      assert.ok(!filtered.includes('tests/**/test_tool.py') && !filtered.includes('src/c/subtotal.test.mjs'));
      // Subtotal's segment contains "total": both expand there, and each keeps all its siblings.
      const both = expandTestSiblings(entries, { role: 'implementation', namedLike: { lastSegment: 'subtotal.test.mjs' } });
      assert.ok(both.includes('src/a/total.spec.ts') && both.includes('src/c/subtotal.spec.mjs'));
      // Case counts only when folded.
      assert.ok(!expandTestSiblings(entries, { role: 'implementation', namedLike: { lastSegment: 'Total.test.ts' } }).includes('src/a/total.test.ts'));
      assert.ok(expandTestSiblings(entries, { role: 'implementation', namedLike: { lastSegment: 'Total.test.ts', ignoreCase: true } }).includes('src/a/total.test.ts'));
    });

    it('keeps every entry when a rule spells a last segment without the name', () => {
      const rules = [{ roles: ['fix'], extensions: ['ts'], siblings: ['{dir}/{name}/index.test.{ext}'] }];
      assert.deepEqual(expandTestSiblings(['src/a.ts'], { role: 'fix', rules, namedLike: { lastSegment: 'index.test.ts' } }), ['src/a.ts', 'src/a/index.test.ts']);
    });
  });
});

