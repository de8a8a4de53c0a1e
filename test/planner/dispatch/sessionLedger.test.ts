import assert from 'node:assert/strict';
import fc from 'fast-check';
import { normalizeScopeEntry } from '../../../src/planner/scope/scopeEntry';
import {
  allRecords,
  emptyLedger,
  formatLedger,
  formatLedgerWithin,
  isSurelyNormal,
  ledgerLockRelativePath,
  ledgerRelativePath,
  MAX_LEDGER_RECORDS,
  parseLedger,
  promptDigest,
  sanitizeSessionId,
  updateLedger,
  waveKeyOf,
  waveOfKey,
} from '../../../src/planner/dispatch/sessionLedger';
import type { LedgerRecord, SessionLedger } from '../../../src/planner/dispatch/sessionLedger';

const NOW = '2026-11-30T12:00:00.000Z';

function record(id: string, at = NOW, extra: Partial<LedgerRecord> = {}): LedgerRecord {
  return { id, desc: id, useId: `toolu_${id}`, files: [`src/${id}/**`], at, ...extra };
}

describe('session ledger: names', () => {
  const cases: Array<[string | undefined, string]> = [
    ['0f2c9a0e-5b1d-4d7e-9f3a-claude-session', '0f2c9a0e-5b1d-4d7e-9f3a-claude-session'],
    ['../../etc/passwd', '.._.._etc_passwd'],
    ['a b/c\\d:e', 'a_b_c_d_e'],
    ['..', '__'],
    ['  spaced  ', 'spaced'],
    ['', 'unknown'],
    [undefined, 'unknown'],
    ['é', '_'],
  ];
  for (const [raw, expected] of cases) {
    it(`session ${JSON.stringify(raw)} → ${expected} (only [A-Za-z0-9._-], never a path)`, () => {
      assert.equal(sanitizeSessionId(raw), expected);
      assert.equal(ledgerRelativePath(raw), `.orchestrator/wave-dispatch-scopes.${expected}.json`);
      assert.equal(ledgerLockRelativePath(raw), `.orchestrator/wave-dispatch-scopes.${expected}.lock`);
      assert.match(sanitizeSessionId(raw), /^[A-Za-z0-9._-]+$/);
    });
  }
  it('wave keys', () => {
    assert.equal(waveKeyOf('s/1', 3, 'implementation'), 's_1|w3|implementation');
    assert.equal(waveKeyOf('s1', undefined, undefined), 's1|w?|?');
    assert.equal(waveOfKey('s1|w3|implementation'), 3);
    assert.equal(waveOfKey('s1|w?|?'), undefined);
  });
  it('prompt digests differ for different prompts and repeat for the same', () => {
    assert.equal(promptDigest('a'), promptDigest('a'));
    assert.notEqual(promptDigest('a'), promptDigest('a '));
    assert.match(promptDigest('x'), /^p1-[0-9a-f]{32}$/);
  });
});

describe('session ledger: the file', () => {
  it('round-trips through its text', () => {
    const ledger = updateLedger(emptyLedger('s1', 's1|w1|impl', NOW), {
      waveKey: 's1|w1|impl',
      now: NOW,
      add: [record('a', NOW, { agent: 'a', type: 'general-purpose', mode: 'async', prompt: promptDigest('p'), bound: { agentId: 'ab12', via: 'prompt', at: NOW } }), record('b')],
      transcriptPath: '/t.jsonl',
    });
    const read = parseLedger(formatLedger(ledger));
    assert.equal(read.kind, 'ok');
    assert.deepEqual((read as { ledger: SessionLedger }).ledger, ledger);
  });

  const corrupt: Array<[string, string]> = [
    ['not JSON', '{'],
    ['not an object', '[]'],
    ['another version', JSON.stringify({ version: 2, session: 's', waveKey: 'k', updated: NOW, waves: {} })],
    ['no waves', JSON.stringify({ version: 1, session: 's', waveKey: 'k', updated: NOW })],
    ['a record without files', JSON.stringify({ version: 1, session: 's', waveKey: 'k', updated: NOW, waves: { k: [{ id: 'a', desc: '', at: NOW }] } })],
    ['an entry that is not normalised', JSON.stringify({ version: 1, session: 's', waveKey: 'k', updated: NOW, waves: { k: [{ id: 'a', desc: '', at: NOW, files: ['./src//a.ts'] }] } })],
    ['an entry the grammar refuses', JSON.stringify({ version: 1, session: 's', waveKey: 'k', updated: NOW, waves: { k: [{ id: 'a', desc: '', at: NOW, files: ['../x'] }] } })],
    ['a bad time', JSON.stringify({ version: 1, session: 's', waveKey: 'k', updated: NOW, waves: { k: [{ id: 'a', desc: '', at: 'yesterday', files: [] }] } })],
    ['a bad binding', JSON.stringify({ version: 1, session: 's', waveKey: 'k', updated: NOW, waves: { k: [{ id: 'a', desc: '', at: NOW, files: [], bound: { agentId: '' } }] } })],
  ];
  for (const [name, text] of corrupt) {
    it(`${name} is corrupt (row 7)`, () => {
      const read = parseLedger(text);
      assert.equal(read.kind, 'corrupt');
      assert.ok((read as { problem: string }).problem.length > 0);
    });
  }

  it('keeps at most MAX_LEDGER_RECORDS, dropping the oldest', () => {
    const base = emptyLedger('s1', 'k', NOW);
    const many = Array.from({ length: MAX_LEDGER_RECORDS + 5 }, (_, index) => record(`r${index}`, new Date(Date.parse(NOW) + index * 1000).toISOString()));
    const ledger = updateLedger(base, { waveKey: 'k', now: NOW, add: many });
    const ids = allRecords(ledger).map(({ record: kept }) => kept.id);
    assert.equal(ids.length, MAX_LEDGER_RECORDS);
    assert.ok(!ids.includes('r0') && !ids.includes('r4') && ids.includes('r5'));
  });

  it('formats within a byte budget: unchanged when it fits, else without the oldest records, never without the newest', () => {
    const records = [record('a', NOW), record('b', '2026-11-30T12:01:00.000Z'), record('c', '2026-11-30T12:02:00.000Z', { files: ['src/é/**'] })];
    const ledger = updateLedger(emptyLedger('s1', 'k', NOW), { waveKey: 'k', now: NOW, add: records });
    const whole = formatLedger(ledger);
    assert.equal(formatLedgerWithin(ledger, Buffer.byteLength(whole))?.text, whole);
    const withoutOldest = formatLedger({ ...ledger, waves: { k: records.slice(1) } });
    const cut = formatLedgerWithin(ledger, Buffer.byteLength(whole) - 1);
    assert.equal(cut?.text, withoutOldest, 'one byte over (the é counts twice): the oldest record goes, and only it');
    const newestAlone = formatLedger({ ...ledger, waves: { k: records.slice(2) } });
    assert.equal(formatLedgerWithin(ledger, Buffer.byteLength(newestAlone))?.text, newestAlone);
    assert.equal(formatLedgerWithin(ledger, Buffer.byteLength(newestAlone) - 1), undefined);
  });

  it('says which ledger its text spells: the records the size took are gone from it too', () => {
    const records = [record('a', NOW), record('b', '2026-11-30T12:01:00.000Z'), record('c', '2026-11-30T12:02:00.000Z')];
    const ledger = updateLedger(emptyLedger('s1', 'k', NOW), { waveKey: 'k', now: NOW, add: records });
    const ids = (within: ReturnType<typeof formatLedgerWithin>) => allRecords(within?.ledger ?? emptyLedger('s1', 'k', NOW)).map(({ record: kept }) => kept.id);
    const whole = formatLedgerWithin(ledger, Buffer.byteLength(formatLedger(ledger)));
    assert.deepEqual(ids(whole), ['a', 'b', 'c']);
    const cut = formatLedgerWithin(ledger, Buffer.byteLength(formatLedger(ledger)) - 1);
    assert.deepEqual(ids(cut), ['b', 'c']);
    assert.equal(cut?.text, formatLedger(cut?.ledger as SessionLedger));
  });

  it('drops wave keys left empty', () => {
    const ledger = updateLedger(emptyLedger('s1', 'k1', NOW), { waveKey: 'k1', now: NOW, add: [record('a')] });
    const next = updateLedger(ledger, { waveKey: 'k2', now: NOW, remove: new Set(['use:toolu_a']), add: [record('b')] });
    assert.deepEqual(Object.keys(next.waves), ['k2']);
    assert.equal(next.waveKey, 'k2');
  });
});

describe('session ledger: the shortcut past the grammar', () => {
  it('accepts only spellings the grammar leaves unchanged (fast-check, oracle normalizeScopeEntry)', () => {
    const unit = fc.constantFrom(...'ab./*-_?{}[] \\!'.split(''), '**', '..', '/');
    fc.assert(
      fc.property(fc.string({ unit, minLength: 1, maxLength: 12 }), (entry) => {
        if (!isSurelyNormal(entry)) return;
        assert.equal(normalizeScopeEntry(entry), entry);
      }),
      { numRuns: 3000 },
    );
  });
  it('takes the common spellings', () => {
    for (const entry of ['src/a.ts', 'src/', 'pkg1/test/**/*.test.ts', '**', 'a/**/b']) assert.equal(isSurelyNormal(entry), true, entry);
    for (const entry of ['./a', 'a//b', 'a/./b', 'a/../b', 'a/**/**/b', 'src/**/', '/abs', 'a b', '{a,b}', 'a?']) assert.equal(isSurelyNormal(entry), false, entry);
  });
});
