// The examples of docs/scope-grammar.md § 4 are read from the page itself and checked, so the page cannot say
// what the engine does not do.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { intersects } from '../../../src/planner/scope/scopeAlgebra';

const page = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'scope-grammar.md'), 'utf8');

/** The rows `| `a` | `b` | yes/no | `witness` |` of the table in one section of the page. */
function collisionRows(section: string): Array<{ a: string; b: string; collide: boolean; witness: string | undefined }> {
  const start = page.indexOf(`## ${section}`);
  const end = page.indexOf('\n## ', start + 1);
  const rows: Array<{ a: string; b: string; collide: boolean; witness: string | undefined }> = [];
  for (const line of page.slice(start, end === -1 ? undefined : end).split('\n')) {
    const match = /^\| `([^`]+)` \| `([^`]+)` \| (yes|no) \| (?:`([^`]+)`)? ?\|$/.exec(line);
    if (match !== null) rows.push({ a: match[1] as string, b: match[2] as string, collide: match[3] === 'yes', witness: match[4] });
  }
  return rows;
}

describe('docs/scope-grammar.md § 4: every example of the collision table', () => {
  const rows = collisionRows('4. Exact answers');
  it('the table is found and has every example', () => {
    assert.ok(rows.length >= 20, `found ${rows.length} rows`);
  });
  for (const { a, b, collide, witness } of rows) {
    it(`${a} and ${b}: ${collide ? `collide at ${witness}` : 'do not collide'}`, () => {
      for (const [left, right] of [
        [a, b],
        [b, a],
      ] as const) {
        const result = intersects(left, right);
        assert.equal(result.overlaps, collide, `${left} ∩ ${right}`);
        if (result.overlaps) assert.equal(result.witness, witness, `${left} ∩ ${right}`);
      }
    });
  }
});
