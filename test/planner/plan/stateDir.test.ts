import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTextIfExists } from '../../../src/node/declarationFs';
import { inspectStateDir, resolveStateDir } from '../../../src/planner/plan/stateDir';
import { STATE_DIR_NAMES } from '../../../src/planner/plan/stateDirNames';

const fs = { readText: readTextIfExists };
const manifest = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ version: 1, wave: 1, role: 'implementation', allowedPaths: ['src/'], blockedCommands: [], ...extra });

describe('resolveStateDir (real directories)', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'wave-scope-statedir-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const put = (name: string, text: string) => {
    mkdirSync(join(root, name), { recursive: true });
    writeFileSync(join(root, name, 'wave-scope.json'), text);
  };
  const own = new Set(['me']);

  it('defaults to .claude, not found, when no candidate has a manifest', () => {
    const result = resolveStateDir(root, own, fs);
    assert.deepEqual(result, { stateDir: join(root, '.claude'), name: '.claude', manifestPath: join(root, '.claude', 'wave-scope.json'), found: false, session: 'unknown' });
  });

  it('checks the candidates in the order .pi, .cursor, .codex, .claude', () => {
    assert.deepEqual([...STATE_DIR_NAMES], ['.pi', '.cursor', '.codex', '.claude']);
    put('.claude', manifest({ session_id: 'me' }));
    put('.codex', manifest());
    assert.equal(resolveStateDir(root, own, fs).name, '.codex');
  });

  it("skips a peer's manifest and finds this session's own further down", () => {
    put('.pi', manifest({ session_id: 'peer' }));
    put('.claude', manifest({ session_id: 'me', wave: 4 }));
    const result = resolveStateDir(root, own, fs);
    assert.equal(result.name, '.claude');
    assert.equal(result.session, 'own');
    assert.equal(result.manifest?.wave, 4);
  });

  it('takes an unbound manifest (not provably foreign) before a later own one', () => {
    put('.cursor', manifest());
    put('.claude', manifest({ session_id: 'me' }));
    const result = resolveStateDir(root, own, fs);
    assert.equal(result.name, '.cursor');
    assert.equal(result.session, 'unknown');
  });

  it('takes a corrupt manifest and reports the problem (it still decides)', () => {
    put('.pi', '{"version": 1, "wave": ');
    put('.claude', manifest({ session_id: 'me' }));
    const result = resolveStateDir(root, own, fs);
    assert.equal(result.name, '.pi');
    assert.equal(result.found, true);
    assert.equal(result.problem?.reason, 'not-json');
    assert.equal(result.manifest, undefined);
  });

  it('takes an invalid manifest and carries the validator errors', () => {
    put('.codex', JSON.stringify({ version: 1, wave: 0, role: 'x', allowedPaths: [], blockedCommands: [] }));
    const result = resolveStateDir(root, own, fs);
    assert.equal(result.problem?.reason, 'invalid');
    assert.match(result.problem?.errors?.[0] ?? '', /"wave" must be a positive integer/);
  });

  it('classifies an invalid manifest naming a peer as foreign and moves on', () => {
    put('.pi', JSON.stringify({ session_id: 'peer' }));
    put('.claude', manifest({ session_id: 'me' }));
    assert.equal(resolveStateDir(root, own, fs).name, '.claude');
  });

  it('returns the first foreign manifest when every one is foreign', () => {
    put('.cursor', manifest({ session_id: 'peer-a' }));
    put('.claude', manifest({ session_id: 'peer-b' }));
    const result = resolveStateDir(root, own, fs);
    assert.equal(result.name, '.cursor');
    assert.equal(result.session, 'foreign');
  });

  it('without own ids nothing is foreign: the first manifest decides', () => {
    put('.pi', manifest({ session_id: 'peer' }));
    put('.claude', manifest({ session_id: 'me' }));
    const result = resolveStateDir(root, new Set(), fs);
    assert.equal(result.name, '.pi');
    assert.equal(result.session, 'unknown');
  });

  it('takes an unreadable manifest (fail closed) and says why', function () {
    if (process.getuid?.() === 0) {
      // root reads any file, so make the "file" a directory instead: still not readable as text.
      mkdirSync(join(root, '.pi', 'wave-scope.json'), { recursive: true });
    } else {
      put('.pi', manifest());
      chmodSync(join(root, '.pi', 'wave-scope.json'), 0o000);
    }
    const result = resolveStateDir(root, own, fs);
    assert.equal(result.name, '.pi');
    assert.equal(result.problem?.reason, 'unreadable');
  });

  it('inspects one explicit state directory', () => {
    put('custom', manifest({ session_id: 'me' }));
    const result = inspectStateDir(join(root, 'custom'), own, fs);
    assert.equal(result.found, true);
    assert.equal(result.session, 'own');
    assert.equal(inspectStateDir(join(root, 'none'), own, fs).found, false);
  });
});
