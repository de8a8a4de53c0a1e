import assert from 'node:assert/strict';
import fc from 'fast-check';
import { entriesLikeSeveral, extractPromptScope, findAgentNaming, needsQuoting } from '../../../src/planner/dispatch/promptScope';
import type { PromptScope } from '../../../src/planner/dispatch/promptScope';
import { normalizeScopeEntry } from '../../../src/planner/scope/scopeEntry';
import { scopeDigest, scopeEchoInstruction } from '../../../src/planner/scope/scopeDigest';

function block(scope: PromptScope) {
  assert.equal(scope.kind, 'block', JSON.stringify(scope));
  return scope as Extract<PromptScope, { kind: 'block' }>;
}

const fenced = (lines: string[], fence = '```') => `Work on the parser.\nFILE-SCOPE — exactly these:\n${fence}\n${lines.join('\n')}\n${fence}\nReport back.`;

describe('extractPromptScope: the reference extractor\'s losses', () => {
  // Each of these was mangled or dropped by the reference's looksLikeRepoPath() filter.
  const entries = ['*.md', '**', '**/*.ts', 'src/{a,b}.ts', 'src/[ab].ts', 'src/?.ts', 'docs/', 'a b/c.txt', 'src/lib/x.ts'];
  it('keeps every valid entry, spelled as the grammar normalises it', () => {
    assert.deepEqual(block(extractPromptScope(fenced(entries))).entries, ['*.md', '**', '**/*.ts', 'src/{a,b}.ts', 'src/[ab].ts', 'src/?.ts', 'docs/', 'a b/c.txt', 'src/lib/x.ts']);
  });
});

describe('extractPromptScope: markers and fences', () => {
  const cases: Array<[string, string, PromptScope['kind'], string[]?]> = [
    ['no marker', 'Just do it.\n```\nsrc/a.ts\n```', 'marker-absent'],
    ['a marker mid-sentence is no marker', 'Respect your FILE-SCOPE below.\n```\nsrc/a.ts\n```', 'marker-absent'],
    ['FILE-SCOPE: with text after it', 'FILE-SCOPE: only these files\n```\nsrc/a.ts\n```', 'block', ['src/a.ts']],
    ['a Markdown heading', '## File scope\n\n```text\nsrc/a.ts\n```', 'block', ['src/a.ts']],
    ['bold', '**FILE-SCOPE** (exactly these):\n~~~\nsrc/a.ts\n~~~', 'block', ['src/a.ts']],
    ['a list item, FILE_SCOPE', '- FILE_SCOPE\n  ```\n  src/a.ts\n  ```', 'block', ['src/a.ts']],
    ['a quote', '> FILE-SCOPE\n```\nsrc/a.ts\n```', 'block', ['src/a.ts']],
    ['seven # are no heading, so no marker', '####### FILE-SCOPE\n```\nsrc/a.ts\n```', 'marker-absent'],
    ['a separator line of # before the marker', `${'#'.repeat(200)}\n### FILE-SCOPE\n\`\`\`\nsrc/a.ts\n\`\`\``, 'block', ['src/a.ts']],
    ['a quote whose block is quoted too', '> FILE-SCOPE\n> ```\n> src/a.ts\n>src/b.ts\n> ```', 'block', ['src/a.ts', 'src/b.ts']],
    ['a nested quote', '> > **FILE-SCOPE**\n> >\n> > ~~~\n> > - src/a.ts\n> > ~~~', 'block', ['src/a.ts']],
    ['a list item whose block is indented as its content, four spaces', '- FILE-SCOPE:\n    ```\n    src/a.ts\n    ```', 'block', ['src/a.ts']],
    ['an item with wide bullet spacing whose block is indented six spaces', '*   FILE-SCOPE\n      ```\n      src/a.ts\n      ```', 'block', ['src/a.ts']],
    ['four spaces after a plain marker is still no fence', 'FILE-SCOPE\n    ```\n    src/a.ts\n    ```', 'unparseable'],
    ['prose between marker and fence', 'FILE-SCOPE — exactly these, nothing else:\nThe list:\n\n```\nsrc/a.ts\n```', 'block', ['src/a.ts']],
    ['a fence before the marker is not the block', '```\nexample\n```\nFILE-SCOPE\n```\nsrc/a.ts\n```', 'block', ['src/a.ts']],
    ['a marker and no fence', 'FILE-SCOPE: src/a.ts and src/b.ts', 'unparseable'],
    ['an unterminated fence', 'FILE-SCOPE\n```\nsrc/a.ts\n', 'unparseable'],
    ['an empty block', 'FILE-SCOPE\n```\n\n   \n```', 'unparseable'],
    ['a longer closing fence closes', 'FILE-SCOPE\n```\nsrc/a.ts\n`````\nafter', 'block', ['src/a.ts']],
    ['a fence line with text does not close', 'FILE-SCOPE\n```\n```not-a-close\n```', 'block', ['```not-a-close']],
    ['CRLF line ends', 'FILE-SCOPE\r\n```\r\nsrc/a.ts\r\nsrc/b.ts\r\n```\r\n', 'block', ['src/a.ts', 'src/b.ts']],
    ['the first marker decides', 'FILE-SCOPE\n```\nsrc/a.ts\n```\nFILE-SCOPE\n```\nsrc/b.ts\n```', 'block', ['src/a.ts']],
  ];
  for (const [name, prompt, kind, entries] of cases) {
    it(name, () => {
      const scope = extractPromptScope(prompt);
      assert.equal(scope.kind, kind, JSON.stringify(scope));
      if (entries !== undefined) assert.deepEqual(block(scope).entries, entries);
    });
  }

  it('reports why a marker led to no block, and where the marker is', () => {
    const scope = extractPromptScope('line one\nFILE-SCOPE\nno fence');
    assert.deepEqual(scope, { kind: 'unparseable', reason: 'no-fence', markerLine: 2, markers: 1 });
    assert.equal((extractPromptScope('FILE-SCOPE\n```\nx\n') as { reason: string }).reason, 'unterminated-fence');
    assert.equal((extractPromptScope('FILE-SCOPE\n```\n```') as { reason: string }).reason, 'empty-block');
    assert.equal(block(extractPromptScope('FILE-SCOPE\n```\na\n```\nFILE SCOPE\n')).markers, 2);
  });
});

describe('extractPromptScope: line styles', () => {
  const cases: Array<[string, string[], string[], string[]]> = [
    ['plain', ['src/a.ts', 'src/b/'], ['src/a.ts', 'src/b/'], ['plain']],
    ['bullets', ['- src/a.ts', '* src/b.ts', '+ src/c.ts', '1. src/d.ts', '2) src/e.ts'], ['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/d.ts', 'src/e.ts'], ['bullet']],
    ['backticks', ['`src/a.ts`', '- `src/*.md`', '`` src/x`y.ts ``'], ['src/a.ts', 'src/*.md', 'src/x`y.ts'], ['bullet', 'backtick']],
    ['trailing commas', ['src/a.ts,', '`src/b.ts`,', 'src/{a,b}.ts'], ['src/a.ts', 'src/b.ts', 'src/{a,b}.ts'], ['plain', 'backtick', 'comma']],
    ['quoted', ['"src/a.ts",', '- "- odd name",', '"ends with comma,"'], ['src/a.ts', '- odd name', 'ends with comma,'], ['bullet', 'quoted']],
    ['a JSON array', ['["src/a.ts", "src/b.ts"]'], ['src/a.ts', 'src/b.ts'], ['json']],
    ['a JSON-ish array with a trailing comma', ['[', '  "src/a.ts",', '  "src/b.ts",', ']'], ['src/a.ts', 'src/b.ts'], ['quoted']],
    ['spellings normalised and duplicates dropped', ['./src/a.ts', 'src//a.ts', 'src/x/../a.ts', 'lib\\b.ts'], ['src/a.ts', 'lib/b.ts'], ['plain']],
  ];
  for (const [name, lines, entries, styles] of cases) {
    it(name, () => {
      const scope = block(extractPromptScope(fenced(lines)));
      assert.deepEqual(scope.entries, entries);
      assert.deepEqual(scope.invalid, []);
      assert.deepEqual(scope.styles, styles);
    });
  }

  it('absolute entries inside the repository root become relative; outside it, invalid', () => {
    const scope = block(extractPromptScope(fenced(['/repo/src/a.ts', '/elsewhere/b.ts']), { repoRoot: '/repo' }));
    assert.deepEqual(scope.entries, ['src/a.ts']);
    assert.deepEqual(scope.invalid.map((entry) => entry.reason), ['absolute-outside-root']);
  });
});

describe('extractPromptScope: invalid entries are reported, never dropped', () => {
  const cases: Array<[string, string, string]> = [
    ['../outside', 'escapes-root', '../outside'],
    ['!src/a.ts', 'negation', '!src/a.ts'],
    ['src/@(a|b).ts', 'extglob', 'src/@(a|b).ts'],
    ['src/[[:alpha:]].ts', 'posix-class', 'src/[[:alpha:]].ts'],
    ['"unterminated', 'bad-quoting', '"unterminated'],
    ['"a" "b"', 'bad-quoting', '"a" "b"'],
    ['.', 'names-root', '.'],
  ];
  for (const [line, reason, entry] of cases) {
    it(`${line} → ${reason}`, () => {
      const scope = block(extractPromptScope(fenced(['src/ok.ts', line])));
      assert.deepEqual(scope.entries, ['src/ok.ts']);
      assert.equal(scope.invalid.length, 1);
      const [invalid] = scope.invalid;
      assert.equal(invalid?.reason, reason);
      assert.equal(invalid?.entry, entry);
      assert.equal(invalid?.line, 5, 'the prompt line of the entry');
      assert.ok((invalid?.message ?? '').length > 0);
    });
  }
});

describe('findAgentNaming', () => {
  it('finds AGENT-ID lines, WAVE_SCOPE_AGENT and echo instruction digests', () => {
    const digest = scopeDigest(['src/a.ts']);
    const prompt = `AGENT-ID: alice\nBe careful.\n**Agent id** = bob\nrun with WAVE_SCOPE_AGENT=carol set\n${scopeEchoInstruction(digest)}\n`;
    assert.deepEqual(findAgentNaming(prompt), { ids: ['alice', 'bob', 'carol'], digests: [digest] });
  });
  it('names nothing in ordinary prose', () => {
    assert.deepEqual(findAgentNaming('The agent id field is documented. Scope digest is a hash.'), { ids: [], digests: [] });
  });
});

// ---------------------------------------------------------------------------------------------
// The property: any valid scope list, written in any accepted style, comes back entry for entry.

type Style = 'plain' | 'dash' | 'star' | 'numbered' | 'backtick' | 'dash-backtick' | 'comma' | 'backtick-comma' | 'quoted' | 'json' | 'json-pretty' | 'bracketed';

const STYLES: Style[] = ['plain', 'dash', 'star', 'numbered', 'backtick', 'dash-backtick', 'comma', 'backtick-comma', 'quoted', 'json', 'json-pretty', 'bracketed'];

/** Writes entries in one style; an entry the style cannot carry as it is goes in as one JSON string (the documented escape). */
function writeBlock(entries: readonly string[], style: Style): string[] {
  if (style === 'json') return [JSON.stringify(entries)];
  if (style === 'json-pretty') return JSON.stringify(entries, null, 2).split('\n');
  if (style === 'bracketed') return ['[', ...entries.map((entry) => `  ${JSON.stringify(entry)},`), ']'];
  const backtick = style === 'backtick' || style === 'dash-backtick' || style === 'backtick-comma';
  return entries.map((entry, index) => {
    const mustQuote = style === 'quoted' || needsQuoting(entry) || (backtick && (entry.startsWith('`') || entry.endsWith('`')));
    const text = mustQuote ? `${JSON.stringify(entry)},` : backtick ? `\`${entry}\`` : entry;
    switch (style) {
      case 'dash':
      case 'dash-backtick':
        return `- ${text}`;
      case 'star':
        return `* ${text}`;
      case 'numbered':
        return `${index + 1}. ${text}`;
      case 'comma':
      case 'backtick-comma':
        return mustQuote ? text : `${text},`;
      default:
        return text;
    }
  });
}

const segmentChars = fc.constantFrom(...'abcXYZ019._-*?[]{},` "\'#!@()+~é'.split(''));
const segment = fc.oneof(
  { weight: 5, arbitrary: fc.string({ unit: segmentChars, minLength: 1, maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom('**', '.', '..', '{a,b}', '[ab]', '?') },
);
const rawEntry = fc
  .tuple(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.boolean(), fc.constantFrom('', ' ', '  '))
  .map(([segments, trailingSlash, pad]) => `${pad}${segments.join('/')}${trailingSlash ? '/' : ''}`);
const validEntry = rawEntry.filter((entry) => {
  try {
    normalizeScopeEntry(entry);
    return true;
  } catch {
    return false;
  }
});

describe('extractPromptScope: any valid scope list, in any accepted style, comes back entry for entry (fast-check)', () => {
  it('round-trips', () => {
    fc.assert(
      fc.property(fc.array(validEntry, { minLength: 1, maxLength: 12 }), fc.constantFrom(...STYLES), fc.constantFrom('```', '~~~~', '```text'), fc.constantFrom('FILE-SCOPE — exactly these:', '## File scope', '**FILE_SCOPE**'), (entries, style, fence, marker) => {
        const close = fence.startsWith('~') ? '~~~~' : '```';
        const prompt = `Do the work.\n${marker}\n${fence}\n${writeBlock(entries, style).join('\n')}\n${close}\nThanks.`;
        const scope = extractPromptScope(prompt);
        const expected = [...new Set(entries.map((entry) => normalizeScopeEntry(entry)))];
        assert.equal(scope.kind, 'block', prompt);
        const found = scope as Extract<PromptScope, { kind: 'block' }>;
        assert.deepEqual(found.invalid, [], prompt);
        assert.deepEqual(found.entries, expected, prompt);
      }),
      { numRuns: 600 },
    );
  });
});

describe('entriesLikeSeveral: a line that holds several paths, or a comment, and names nothing', () => {
  const onDisk = new Set(['src/a.ts', 'notes/draft, v2.md', 'docs/a #1.md']);
  const exists = (entry: string) => onDisk.has(entry);

  it('reports an entry with ", " or " #" that names nothing, in the block\'s order', () => {
    const entries = ['src/a.ts, src/b.ts', 'src/a.ts', 'docs/  # the docs', 'src/*.ts,\tlib/*.ts', 'src/c.ts\t# mine'];
    assert.deepEqual(entriesLikeSeveral(entries, exists), ['src/a.ts, src/b.ts', 'docs/  # the docs', 'src/*.ts,\tlib/*.ts', 'src/c.ts\t# mine']);
  });

  it('leaves alone a path that holds such a spelling and is there, and one without it', () => {
    assert.deepEqual(entriesLikeSeveral(['notes/draft, v2.md', 'docs/a #1.md', 'src/a,b.ts', 'src/#tag.ts', 'src/missing.ts'], exists), []);
  });
});
