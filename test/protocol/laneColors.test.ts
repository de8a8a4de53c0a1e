// Lane colours live in one module (src/protocol/laneColors.ts), shared by the extension (agents read
// from disk) and the webview (new agents); a copy of the palette elsewhere is refused.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LANE_COLORS, laneColorAt, nextLaneColor } from '../../src/protocol/laneColors';

const repo = join(__dirname, '..', '..');

describe('lane colours', () => {
  it('laneColorAt goes round the palette', () => {
    assert.equal(laneColorAt(0), LANE_COLORS[0]);
    assert.equal(laneColorAt(LANE_COLORS.length + 2), LANE_COLORS[2]);
    assert.equal(laneColorAt(-1), LANE_COLORS[LANE_COLORS.length - 1]);
  });

  const cases: [string, string[], string][] = [
    ['an empty wave gets the first colour', [], LANE_COLORS[0]],
    ['the first colour not in use', [LANE_COLORS[0], LANE_COLORS[2]], LANE_COLORS[1]],
    ['colours not from the palette do not count', ['#000000'], LANE_COLORS[0]],
    ['every colour in use: the colour of the next lane', [...LANE_COLORS, LANE_COLORS[0]], LANE_COLORS[(LANE_COLORS.length + 1) % LANE_COLORS.length]!],
  ];
  for (const [name, used, expected] of cases) {
    it(`nextLaneColor: ${name}`, () => assert.equal(nextLaneColor(used), expected));
  }

  it('the palette is written down in laneColors.ts only (src/ and webview/)', () => {
    const copies: string[] = [];
    for (const top of ['src', 'webview']) {
      for (const name of readdirSync(join(repo, top), { recursive: true, encoding: 'utf8' })) {
        if (!name.endsWith('.ts') || name.split(/[\\/]/).join('/') === 'protocol/laneColors.ts') continue;
        const text = readFileSync(join(repo, top, name), 'utf8').toLowerCase();
        const found = LANE_COLORS.filter((color) => text.includes(color));
        if (found.length >= 2) copies.push(`${top}/${name} (${found.join(', ')})`);
      }
    }
    assert.deepEqual(copies, []);
  });
});
