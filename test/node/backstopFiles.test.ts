import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendLine, fingerprintPlanFiles, RACY_WINDOW_NS, readSavedText, writeFileBelow } from '../../src/node/backstopFiles';
import { comparePlanFiles, hasContentHash, planFileRequest } from '../../src/planner/backstop/planFiles';
import { UnsafePathError } from '../../src/node/declarationFs';
import { ControlFileError } from '../../src/node/hookFileSystem';

describe('backstop: its own files (src/node/backstopFiles.ts)', () => {
  let dir: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-backstop-files-')));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // A saved listing is read as Latin-1 when every byte is ASCII: any other text must come back as UTF-8 would give it.
  const texts: Array<{ name: string; text: string }> = [
    { name: 'ASCII', text: `100644 ${'a'.repeat(40)} 0\tsrc/app.ts\0` },
    { name: 'an accented path', text: `100644 ${'a'.repeat(40)} 0\tdocs/naïve.md\0` },
    { name: 'an astral character and a newline', text: `100644 ${'b'.repeat(40)} 0\tz/😀\nline\0` },
    { name: 'Latin-1 range characters (bytes that Latin-1 would misread)', text: 'ÿþ\u00a0©' },
    { name: 'empty', text: '' },
  ];
  for (const { name, text } of texts) {
    it(`reads back exactly what was written: ${name}`, () => {
      const path = join(dir, 'hooks', 'key.snapshot');
      writeFileBelow(dir, path, text);
      assert.equal(readSavedText(dir, path), text);
      assert.equal(readSavedText(dir, path), readFileSync(path, 'utf8'));
      assert.deepEqual(readdirSync(join(dir, 'hooks')), ['key.snapshot'], 'no temporary file is left beside it');
    });
  }

  it('replaces a saved file whole, and says when there is none', () => {
    const path = join(dir, 'key.snapshot');
    assert.equal(readSavedText(dir, path), undefined);
    assert.equal(readSavedText(dir, join(dir, 'no-such-dir', 'key.snapshot')), undefined);
    writeFileSync(join(dir, 'file'), 'x');
    assert.equal(readSavedText(dir, join(dir, 'file', 'key.snapshot')), undefined, 'a file where a directory should be holds nothing saved');
    writeFileBelow(dir, path, 'a much longer first version\n');
    writeFileBelow(dir, path, 'short\n');
    assert.equal(readSavedText(dir, path), 'short\n');
    assert.equal(statSync(path).mode & 0o777, 0o644);
  });

  it('fails on what it cannot read, rather than taking it for nothing saved', () => {
    mkdirSync(join(dir, 'key.snapshot'));
    assert.throws(() => readSavedText(dir, join(dir, 'key.snapshot')), (error) => error instanceof ControlFileError && error.reason === 'not-a-file');
  });

  it('reads a saved file only as the hook left it: not through a link, on the way or at the file, nor with a second name', () => {
    const path = join(dir, 'hooks', 'key.snapshot');
    writeFileBelow(dir, path, 'saved\n');
    writeFileSync(join(dir, 'elsewhere'), 'crafted\n');
    const refused = (asked: string, reason: string) =>
      assert.throws(() => readSavedText(dir, asked), (error) => error instanceof ControlFileError && error.reason === reason && error.message.includes(asked));
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'hooks', 'linked.snapshot'));
    refused(join(dir, 'hooks', 'linked.snapshot'), 'linked');
    linkSync(join(dir, 'elsewhere'), join(dir, 'hooks', 'second-name.snapshot'));
    refused(join(dir, 'hooks', 'second-name.snapshot'), 'hard-linked');
    symlinkSync('hooks', join(dir, 'via'));
    refused(join(dir, 'via', 'key.snapshot'), 'linked');
    assert.equal(readSavedText(dir, path), 'saved\n');
    assert.equal(readSavedText(join(dir, 'via'), join(dir, 'via', 'key.snapshot')), 'saved\n', 'the root itself may be reached through a link');
  });

  it('writes below a root only through real directories: a link on the way is refused, a link at the file is replaced', () => {
    const root = join(dir, 'repo');
    mkdirSync(root);
    writeFileBelow(root, join(root, 'a', 'b', 'record.json'), 'one\n');
    assert.equal(readFileSync(join(root, 'a', 'b', 'record.json'), 'utf8'), 'one\n');
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'record.json'), 'a person\'s file\n');
    symlinkSync('../docs', join(root, 'a', 'linked'));
    assert.throws(() => writeFileBelow(root, join(root, 'a', 'linked', 'record.json'), 'two\n'), (error) => error instanceof UnsafePathError && error.reason === 'symlink');
    writeFileSync(join(root, 'a', 'plain'), '');
    assert.throws(() => writeFileBelow(root, join(root, 'a', 'plain', 'record.json'), 'two\n'), (error) => error instanceof UnsafePathError && error.reason === 'not-a-directory');
    symlinkSync('../../docs/record.json', join(root, 'a', 'b', 'link.json'));
    writeFileBelow(root, join(root, 'a', 'b', 'link.json'), 'three\n');
    assert.ok(lstatSync(join(root, 'a', 'b', 'link.json')).isFile());
    assert.equal(readFileSync(join(root, 'docs', 'record.json'), 'utf8'), 'a person\'s file\n');
  });

  it('fingerprints a plan file by its content too while its times are recent enough for a same-size write to keep them, and while the fingerprint it is compared with has it', () => {
    const stateDir = join(dir, '.claude');
    const manifest = join(stateDir, 'wave-scope.json');
    const alice = join(stateDir, 'filescopes', 'wave-2', 'alice.json');
    mkdirSync(join(stateDir, 'filescopes', 'wave-2'), { recursive: true });
    writeFileSync(manifest, '{"wave":2}\n');
    writeFileSync(alice, '["src/a/"]\n');
    const request = planFileRequest([{ root: dir, stateDir, wave: 2 }]);
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

    // Just written: hashed, with the hash of exactly what the file holds.
    const fresh = fingerprintPlanFiles(request);
    assert.match(fresh.get(alice) ?? '', new RegExp(` sha256:${sha256('["src/a/"]\n')}$`));
    assert.equal(hasContentHash(fresh.get(join(stateDir, 'filescopes'))), false, 'a directory is never read');

    // Looked at long after its last change: from lstat alone.
    const later = () => Number((statSync(alice, { bigint: true }).ctimeNs + RACY_WINDOW_NS) / 1_000_000n) + 1000;
    const old = fingerprintPlanFiles(request, undefined, { now: later });
    assert.equal(hasContentHash(old.get(alice)), false);
    assert.equal(hasContentHash(old.get(manifest)), false);

    // Compared with a fingerprint that has the hash, it is hashed again however old it is: a rewrite of the
    // same size is a change by its content, whatever the file system's clock showed.
    writeFileSync(alice, '["src/b/"]\n');
    const rewritten = fingerprintPlanFiles(request, fresh, { now: later });
    assert.match(rewritten.get(alice) ?? '', new RegExp(` sha256:${sha256('["src/b/"]\n')}$`));
    assert.deepEqual(comparePlanFiles(request, fresh, rewritten).map((change) => [change.path, change.kind]), [[alice, 'modified']]);
    assert.deepEqual(comparePlanFiles(request, rewritten, fingerprintPlanFiles(request, rewritten, { now: later })), [], 'untouched since: equal');

    // A link put where the file was is fingerprinted as a link, never read through.
    rmSync(alice);
    symlinkSync(manifest, alice);
    const linked = fingerprintPlanFiles(request, rewritten);
    assert.match(linked.get(alice) ?? '', /^link /);
    assert.equal(hasContentHash(linked.get(alice)), false);
  });

  it('fingerprints, in filescopes/, the earlier waves\' aggregates and nothing else there, and the session record', () => {
    const stateDir = join(dir, '.claude');
    const filescopes = join(stateDir, 'filescopes');
    mkdirSync(join(filescopes, 'wave-3'), { recursive: true });
    mkdirSync(join(filescopes, 'wave-4'), { recursive: true });
    for (const name of ['wave-1.scopes.json', 'wave-2.scopes.json', 'wave-3.scopes.json', 'wave-4.scopes.json', 'notes.txt']) writeFileSync(join(filescopes, name), '[]\n');
    writeFileSync(join(stateDir, 'wave-scope-session.json'), '{"version":1,"session_id":"s","started_at":1}\n');
    const request = planFileRequest([{ root: dir, stateDir, wave: 3 }]);
    const inFilescopes = [...fingerprintPlanFiles(request).keys()].filter((path) => path.startsWith(`${filescopes}/`)).map((path) => path.slice(filescopes.length + 1));
    assert.deepEqual(inFilescopes.sort(), ['wave-1.scopes.json', 'wave-2.scopes.json', 'wave-3', 'wave-3.scopes.json']);
    assert.ok(fingerprintPlanFiles(request).has(join(stateDir, 'wave-scope-session.json')));
  });

  it('appends one whole line per call', () => {
    const path = join(dir, 'metrics', 'events.jsonl');
    appendLine(path, '{"a":1}');
    appendLine(path, '{"b":2}');
    assert.equal(readFileSync(path, 'utf8'), '{"a":1}\n{"b":2}\n');
  });
});
