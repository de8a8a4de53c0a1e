import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { formatManifest, refuseGrant, roleWrites, validateManifest, validateManifestDocument } from '../../../src/planner/plan/manifest';
import { STATE_DIR_NAMES } from '../../../src/planner/plan/stateDirNames';

const schema = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'schemas', 'wave-scope.schema.json'), 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: true });
const schemaValidates = ajv.compile(schema);

const base = { version: 1, wave: 2, role: 'implementation', allowedPaths: ['src/a.ts'], blockedCommands: [], session_id: 's-1' };
const withPaths = (...allowedPaths: unknown[]) => ({ ...base, allowedPaths });

interface Case {
  name: string;
  doc: unknown;
  /** Each expected error, as a regular expression; [] for a valid document. */
  errors: RegExp[];
  warnings?: RegExp[];
}

const cases: Case[] = [
  { name: 'a complete bound manifest', doc: base, errors: [] },
  { name: 'every optional key', doc: { ...base, enforcement: 'warn', gates: { g7: true, echo: false }, semantic_session_id: 'calm-otter' }, errors: [] },
  { name: 'enforcement off', doc: { ...base, enforcement: 'off' }, errors: [] },
  { name: 'an unbound manifest (warning only)', doc: { version: 1, wave: 1, role: 'implementation', allowedPaths: ['src/'], blockedCommands: [] }, errors: [], warnings: [/names no session/] },
  { name: 'globs and directories', doc: withPaths('src/**/*.ts', 'docs/', '*.md', '{a,b}/c.ts', '.github/workflows/ci.yml'), errors: [] },
  { name: 'a discovery wave with nothing allowed', doc: { ...base, role: 'discovery', allowedPaths: [] }, errors: [], warnings: [] },
  { name: 'an implementation wave with nothing allowed', doc: { ...base, allowedPaths: [] }, errors: [], warnings: [/"allowedPaths" is empty, so role "implementation" may not write/] },
  { name: 'wildcard *', doc: withPaths('*'), errors: [], warnings: [/grants every file/] },
  { name: 'wildcard **', doc: withPaths('**'), errors: [], warnings: [/grants every file/] },
  { name: 'wildcard **/*', doc: withPaths('**/*'), errors: [], warnings: [/grants every file/] },
  { name: 'wildcard ./**', doc: withPaths('./**'), errors: [], warnings: [/grants every file/] },
  { name: 'unknown key', doc: { ...base, extra: 1 }, errors: [], warnings: [/unknown key "extra" is ignored/] },
  { name: 'legacy session key', doc: { ...base, session: 'x' }, errors: [], warnings: [/"session" is the legacy spelling of "session_id"/] },
  { name: 'not an object', doc: [], errors: [/must be a JSON object, got an array/] },
  { name: 'null', doc: null, errors: [/must be a JSON object, got null/] },
  { name: 'a string', doc: 'x', errors: [/must be a JSON object/] },
  { name: 'everything missing', doc: {}, errors: [/"version" is missing/, /"wave" is missing/, /"role" is missing/, /"allowedPaths" is missing/, /"blockedCommands" is missing/] },
  { name: 'version 2', doc: { ...base, version: 2 }, errors: [/"version" must be 1, got 2/] },
  { name: 'a role with an escape sequence', doc: { ...base, role: 'implementation\u001b[2K' }, errors: [/"role" "implementation\\u001b\[2K" contains a control character/] },
  { name: 'version "1"', doc: { ...base, version: '1' }, errors: [/"version" must be 1/] },
  { name: 'wave 0', doc: { ...base, wave: 0 }, errors: [/"wave" must be a positive integer, got 0/] },
  { name: 'wave 1.5', doc: { ...base, wave: 1.5 }, errors: [/"wave" must be a positive integer/] },
  { name: 'wave "3"', doc: { ...base, wave: '3' }, errors: [/"wave" must be a positive integer, got "3"/] },
  { name: 'role empty', doc: { ...base, role: '' }, errors: [/"role" must be a non-empty string/] },
  { name: 'role blank', doc: { ...base, role: '   ' }, errors: [/"role" must be a non-empty string/] },
  { name: 'role a number', doc: { ...base, role: 3 }, errors: [/"role" must be a non-empty string, got 3/] },
  { name: 'enforcement unknown', doc: { ...base, enforcement: 'lenient' }, errors: [/"enforcement" must be one of "strict", "warn", "off", got "lenient"/] },
  { name: 'allowedPaths not an array', doc: { ...base, allowedPaths: 'src/' }, errors: [/"allowedPaths" must be an array/] },
  { name: 'allowedPaths item not a string', doc: withPaths(3), errors: [/"allowedPaths"\[0\] must be a string, got 3/] },
  { name: 'empty entry', doc: withPaths(''), errors: [/"allowedPaths"\[0\] "" is empty/] },
  { name: 'control character', doc: withPaths('src/a\u0007.ts'), errors: [/contains a control character/] },
  { name: 'newline', doc: withPaths('src/a\n.ts'), errors: [/contains a control character/] },
  { name: 'surrounding whitespace', doc: withPaths(' src/a.ts'), errors: [/has leading or trailing whitespace/] },
  { name: 'trailing whitespace', doc: withPaths('src/a.ts '), errors: [/has leading or trailing whitespace/] },
  { name: 'line separator at the end', doc: withPaths('src/a.ts\u2028'), errors: [/has leading or trailing whitespace/] },
  { name: 'root /', doc: withPaths('/'), errors: [/grants the file-system root/] },
  { name: 'root /**', doc: withPaths('/**'), errors: [/grants the file-system root/] },
  { name: 'root C:\\', doc: withPaths('C:\\'), errors: [/grants the file-system root/] },
  { name: 'root C:/**', doc: withPaths('C:/**'), errors: [/grants the file-system root/] },
  { name: 'network share', doc: withPaths('\\\\server\\share'), errors: [/grants a network share root/] },
  { name: '/etc', doc: withPaths('/etc'), errors: [/grants the system directory "\/etc"/] },
  { name: '/usr/**', doc: withPaths('/usr/**'), errors: [/grants the system directory "\/usr"/] },
  { name: 'C:\\Windows\\System32', doc: withPaths('C:\\Windows\\System32'), errors: [/grants the system directory "\/Windows"/] },
  { name: '/home', doc: withPaths('/home/'), errors: [/grants a home directory/] },
  { name: '/Users/me', doc: withPaths('/Users/me/**'), errors: [/grants a home directory/] },
  { name: '/root', doc: withPaths('/root'), errors: [/grants a home directory/] },
  { name: '~', doc: withPaths('~'), errors: [/grants a home directory/] },
  { name: '~/project', doc: withPaths('~/project/**'), errors: [/grants a home directory/] },
  { name: '$HOME', doc: withPaths('$HOME/x'), errors: [/grants a home directory/] },
  { name: '%USERPROFILE%', doc: withPaths('%USERPROFILE%\\x'), errors: [/grants a home directory/] },
  { name: 'plain absolute path', doc: withPaths('/work/repo/src/a.ts'), errors: [/is an absolute path: write it relative to the repository root/] },
  { name: 'traversal', doc: withPaths('../other/x.ts'), errors: [/climbs out of the repository with "\.\."/] },
  { name: 'traversal in the middle', doc: withPaths('src/../../x'), errors: [/climbs out/] },
  { name: 'traversal with backslashes', doc: withPaths('src\\..\\..\\x'), errors: [/climbs out/] },
  { name: 'two dots in a name are fine', doc: withPaths('src/a..b.ts', 'src/..x/y'), errors: [] },
  { name: 'negation', doc: withPaths('!src/a.ts'), errors: [/is a negation/] },
  { name: 'blockedCommands not an array', doc: { ...base, blockedCommands: 'rm' }, errors: [/"blockedCommands" must be an array/] },
  { name: 'blockedCommands blank item', doc: { ...base, blockedCommands: ['git push', ' '] }, errors: [/"blockedCommands"\[1\] must be a non-empty string/] },
  { name: 'gates not an object', doc: { ...base, gates: [] }, errors: [/"gates" must be an object of booleans/] },
  { name: 'gate not a boolean', doc: { ...base, gates: { g7: 'yes' } }, errors: [/"gates"."g7" must be true or false, got "yes"/] },
  { name: 'empty session_id', doc: { ...base, session_id: '' }, errors: [/"session_id" is empty: .*omit the key to leave the manifest unbound/] },
  { name: 'blank session_id', doc: { ...base, session_id: '  ' }, errors: [/"session_id" is empty/] },
  { name: 'empty semantic_session_id', doc: { ...base, semantic_session_id: '' }, errors: [/"semantic_session_id" is empty/] },
  { name: 'session_id a number', doc: { ...base, session_id: 7 }, errors: [/"session_id" must be a string, got 7/] },
  {
    name: 'several problems at once',
    doc: { version: 1, wave: -1, role: '', allowedPaths: ['/', '../x', 'ok/'], blockedCommands: [1] },
    errors: [/"wave" must be a positive integer/, /"role" must be a non-empty string/, /\[0\] "\/" grants the file-system root/, /\[1\] "\.\.\/x" climbs out/, /"blockedCommands"\[0\]/],
  },
];

describe('validateManifest', () => {
  for (const testCase of cases) {
    it(`${testCase.errors.length === 0 ? 'accepts' : 'rejects'} ${testCase.name}`, () => {
      const result = validateManifest(testCase.doc);
      assert.equal(result.errors.length, testCase.errors.length, `errors: ${JSON.stringify(result.errors)}`);
      testCase.errors.forEach((pattern, index) => assert.match(result.errors[index] ?? '', pattern));
      if (testCase.warnings !== undefined) {
        const relevant = result.warnings.filter((warning) => !/names no session/.test(warning) || testCase.warnings?.some((w) => w.test(warning)));
        assert.equal(relevant.length, testCase.warnings.length, `warnings: ${JSON.stringify(result.warnings)}`);
        testCase.warnings.forEach((pattern) => assert.ok(result.warnings.some((warning) => pattern.test(warning)), `no warning ${pattern}`));
      }
      assert.equal(result.manifest === undefined, testCase.errors.length > 0);
    });
  }

  it('agrees with the published JSON Schema (Ajv) on every document of the table', () => {
    // The schema says everything but the control-state check (see 'grants that can name control state').
    const disagreements = cases.filter((testCase) => schemaValidates(testCase.doc) !== (validateManifest(testCase.doc, { controlState: false }).errors.length === 0));
    assert.deepEqual(disagreements.map((testCase) => testCase.name), []);
    // The table holds both kinds, so the agreement is not vacuous.
    assert.ok(cases.some((testCase) => testCase.errors.length === 0) && cases.some((testCase) => testCase.errors.length > 0));
  });

  it('agrees with the schema on generated grant spellings', () => {
    const pieces = ['', '/', '\\', '.', '..', '~', '!', ' ', 'C:', 'src', '**', '*', '$HOME', 'a..b', '\t', 'etc'];
    let checked = 0;
    for (const a of pieces) {
      for (const b of pieces) {
        for (const c of ['', '/', 'x']) {
          const doc = withPaths(`${a}${b}${c}`);
          assert.equal(schemaValidates(doc), validateManifest(doc, { controlState: false }).errors.length === 0, JSON.stringify(doc.allowedPaths));
          checked += 1;
        }
      }
    }
    assert.equal(checked, pieces.length * pieces.length * 3);
  });

  it('fills in enforcement "strict" when absent and keeps the rest', () => {
    const { manifest } = validateManifest({ version: 1, wave: 3, role: 'fix', allowedPaths: ['a'], blockedCommands: ['git push'], gates: { x: true } });
    assert.deepEqual(manifest, { version: 1, wave: 3, role: 'fix', enforcement: 'strict', allowedPaths: ['a'], blockedCommands: ['git push'], gates: { x: true } });
  });

  it('formats a manifest that validates back to itself, keys in a fixed order', () => {
    const manifest = { version: 1 as const, wave: 4, role: 'implementation', enforcement: 'warn' as const, allowedPaths: ['src/'], blockedCommands: [], session_id: 'abc' };
    const text = formatManifest(manifest);
    assert.deepEqual(Object.keys(JSON.parse(text)), ['version', 'wave', 'role', 'enforcement', 'allowedPaths', 'blockedCommands', 'session_id']);
    assert.deepEqual(validateManifestDocument(text).manifest, manifest);
    assert.ok(text.endsWith('}\n'));
  });
});

describe('validateManifest: grants that can name control state (controlState.ts)', () => {
  const refused: Array<[string, RegExp]> = [
    ['.git/', /"\.git\/[^"]*", which is control state \(git's own files and hooks\)/],
    ['.git', /"\.git", which is control state \(git's own files and hooks\)/],
    ['.GIT/hooks/', /which is control state \(git's own files and hooks\)/],
    ['.claude/', /"\.claude\/[^"]*", which is control state/],
    ['.claude/wave-scope.json', /"\.claude\/wave-scope\.json", which is control state \(a wave manifest\)/],
    ['.clau[d]e/filescopes/**', /which is control state \(a wave's declarations \(filescopes\/\)\)/],
    ['.pi/*', /"\.pi\/[^"]*", which is control state/],
    ['{.codex,src}/hooks.json', /"\.codex\/hooks\.json", which is control state \(an agent CLI's hook settings\)/],
    ['.*/settings.json', /which is control state \(an agent CLI's hook settings\)/],
    ['.husky/pre-commit', /which is control state \(git's own files and hooks\)/],
    ['AGENTS.md', /"AGENTS\.md", which is control state \(a file that changes what agents run or are told\)/],
    ['.mcp.json', /which is control state \(a file that changes what agents run or are told\)/],
    ['.cursor/rules/style.mdc', /which is control state \(a file that changes what agents run or are told\)/],
  ];
  for (const [grant, pattern] of refused) {
    it(`refuses the grant ${grant}, naming the control path it can name`, () => {
      const result = validateManifest(withPaths('src/', grant));
      assert.equal(result.errors.length, 1, JSON.stringify(result.errors));
      assert.match(result.errors[0] ?? '', /^"allowedPaths"\[1\] /);
      assert.match(result.errors[0] ?? '', pattern);
      assert.match(result.errors[0] ?? '', /: no wave grants it$/);
      assert.equal(result.manifest, undefined);
    });
  }
  // A wildcard never stands for the first character of a path: repository-wide globs claim no control
  // state (the gate still denies every control path to every dispatched agent).
  const accepted = ['.github/workflows/ci.yml', '.gitignore', '.claude-notes/x.md', 'src/.git-keep', '**/*.test.ts', '*.md', '**', 'docs/AGENTS.md', '.codex/notes.md', '.claude/notes.md'];
  for (const grant of accepted) {
    it(`accepts the grant ${grant}`, () => assert.deepEqual(validateManifest(withPaths(grant)).errors, []));
  }

  it('judges a grant the same however often, and however many others, it has been judged (the refusals it remembers)', () => {
    const grants = ['.git/', 'src/', '/etc/passwd', 'docs/', '.claude/'];
    const first = validateManifest(withPaths(...grants)).errors;
    assert.equal(first.length, 3, JSON.stringify(first));
    assert.deepEqual(validateManifest(withPaths(...grants)).errors, first);
    // More distinct grants than are remembered, then the same five again: judged anew, alike.
    const many = Array.from({ length: 5000 }, (_, index) => `pkg${index}/`);
    assert.deepEqual(validateManifest(withPaths(...many)).errors, []);
    assert.deepEqual(validateManifest(withPaths(...grants, ...many)).errors, first);
    assert.deepEqual(validateManifest(withPaths(...grants), { controlState: false }).errors.length, 1, 'without control state only the absolute path is refused');
  });
});

describe('the published schema', () => {
  it('is what VS Code validates every candidate wave-scope.json against (package.json jsonValidation)', () => {
    const root = join(__dirname, '..', '..', '..');
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const entry = pkg.contributes.jsonValidation.find((item: { url: string }) => item.url === './schemas/wave-scope.schema.json');
    assert.ok(entry, 'no jsonValidation entry for the schema');
    assert.deepEqual([...entry.fileMatch].sort(), STATE_DIR_NAMES.map((name) => `**/${name}/wave-scope.json`).sort());
    assert.deepEqual(JSON.parse(readFileSync(join(root, entry.url), 'utf8')), schema);
  });
});

describe('validateManifestDocument', () => {
  const table: Array<[string, string, RegExp]> = [
    ['empty input', '', /no manifest on stdin/],
    ['blank input', '  \n', /no manifest on stdin/],
    ['not JSON', '{"version": 1,', /the manifest is not valid JSON/],
  ];
  for (const [name, text, pattern] of table) {
    it(`reports ${name}`, () => {
      const result = validateManifestDocument(text);
      assert.equal(result.errors.length, 1);
      assert.match(result.errors[0] ?? '', pattern);
    });
  }
  it('validates a parsed document', () => {
    assert.deepEqual(validateManifestDocument(JSON.stringify(base)).errors, []);
  });
});

describe('refuseGrant and roleWrites', () => {
  it('accepts repository-relative entries and refuses the rest', () => {
    assert.equal(refuseGrant('src/a.ts'), undefined);
    assert.match(refuseGrant('/opt/x') ?? '', /system directory/);
  });
  const roles: Array<[string, boolean]> = [['discovery', false], ['Review', false], [' audit ', false], ['implementation', true], ['fix', true]];
  for (const [role, writes] of roles) {
    it(`role "${role}" ${writes ? 'writes' : 'does not write'}`, () => assert.equal(roleWrites(role), writes));
  }
});
