import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { canonicalScopeText, extractScopeEcho, scopeDigest, scopeEchoInstruction } from '../../../src/planner/scope/scopeDigest';

describe('scopeDigest', () => {
  it('follows the documented algorithm exactly', () => {
    const expected = `ws1-${createHash('sha256').update('src/a.ts\nsrc/b/\n', 'utf8').digest('hex').slice(0, 16)}`;
    assert.equal(scopeDigest(['src/b/', 'src/a.ts']), expected);
  });

  const same: Array<[string, string[], string[]]> = [
    ['order', ['b', 'a'], ['a', 'b']],
    ['duplicates', ['a', 'a', 'b'], ['a', 'b']],
    ['spelling the grammar normalises', ['./src//a.ts', 'src\\b.ts'], ['src/a.ts', 'src/b.ts']],
  ];
  for (const [name, left, right] of same) {
    it(`does not depend on ${name}`, () => assert.equal(scopeDigest(left), scopeDigest(right)));
  }

  const different: Array<[string, string[], string[]]> = [
    ['one more entry', ['a'], ['a', 'b']],
    ['a file versus its directory', ['src/a'], ['src/a/']],
    ['case', ['README.md'], ['readme.md']],
    ['a joined name versus two entries', ['a\nb'.replace('\n', '')], ['a', 'b']],
  ];
  for (const [name, left, right] of different) {
    it(`tells apart ${name}`, () => assert.notEqual(scopeDigest(left), scopeDigest(right)));
  }

  it('has a fixed shape and a digest for the empty scope', () => {
    assert.match(scopeDigest([]), /^ws1-[0-9a-f]{16}$/);
    assert.equal(canonicalScopeText([]), '');
  });

  it('sorts by code units, not by locale', () => {
    assert.equal(canonicalScopeText(['b', 'B', 'a', '_']), 'B\n_\na\nb\n');
  });

  it('throws for an entry the grammar refuses', () => assert.throws(() => scopeDigest(['../x']), /climbs out/));
});

describe('scope echo', () => {
  it('instructs the agent to echo the digest, and the echo can be read back', () => {
    const digest = scopeDigest(['src/a.ts']);
    const line = scopeEchoInstruction(digest);
    assert.ok(!line.includes('\n'));
    assert.match(line, new RegExp(`SCOPE-ECHO: ${digest}`));
    assert.equal(extractScopeEcho(`Done.\nSCOPE-ECHO: ws1-0000000000000000\nfixed\nSCOPE-ECHO: ${digest}\n`), digest);
    assert.equal(extractScopeEcho('no echo here'), undefined);
  });
});
