import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import Ajv from 'ajv';
import { agentScopePath, waveSidecarPath } from '../../../src/planner/plan/declarationPaths';
import { readWaveDeclaration } from '../../../src/planner/plan/declarationStore';
import type { DeclarationFs, WriteStep } from '../../../src/planner/plan/declarationStore';
import { nodeDeclarationFs, readTextIfExists } from '../../../src/node/declarationFs';
import { commitWavePlan, manifestSkeletonText, plannedManifestText, prepareWavePlan, resolveWriteStateDir, stoppedOnInput, writeWavePlan } from '../../../src/planner/plan/planWriter';
import type { PreparedWavePlan } from '../../../src/planner/plan/planWriter';
import type { WavePlanRequest } from '../../../src/planner/plan/planWriter';

const schema = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'schemas', 'wave-scope.schema.json'), 'utf8'));
const schemaValidates = new Ajv({ strict: true }).compile(schema);

describe('writeWavePlan (the safe chain, real directories)', () => {
  let root: string;
  let stateDir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'wave-scope-plan-'));
    stateDir = join(root, '.claude');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const manifestFile = () => join(stateDir, 'wave-scope.json');
  const readManifest = () => JSON.parse(readFileSync(manifestFile(), 'utf8'));
  /** The state directory's file system, with `meddle` run just after the chain writes the aggregate (a concurrent writer). */
  const afterAggregate = (meddle: (real: DeclarationFs, path: string, text: string) => void): DeclarationFs => {
    const real = nodeDeclarationFs(stateDir);
    return {
      ...real,
      writeAtomic(path, text) {
        real.writeAtomic(path, text);
        if (path === waveSidecarPath(stateDir, 1)) meddle(real, path, text);
      },
    };
  };
  /** Wave 1 of three agents, written in this session, with `overrides`. */
  const request = (overrides: Partial<WavePlanRequest> = {}): WavePlanRequest => ({
    repoRoot: root,
    stateDir,
    wave: 1,
    role: 'implementation',
    records: [
      { id: 'alice', files: ['src/cart/total.ts'] },
      { id: 'bob', files: ['src/ui/'] },
      { id: 'coordinator', files: ['README.md'] },
    ],
    ownIds: new Set(['sess-1']),
    knownFiles: ['src/cart/total.ts', 'src/ui/button.ts', 'README.md'],
    ...overrides,
  });
  const plan = (overrides: Partial<WavePlanRequest> = {}, fs: DeclarationFs = nodeDeclarationFs(stateDir)) => writeWavePlan(request(overrides), fs);

  it('a manifest the records cannot give (a grant the manifest refuses) stops the chain before its first write', () => {
    assert.equal(plan().ok, true);
    const before = readFileSync(manifestFile(), 'utf8');
    const aggregate = readFileSync(waveSidecarPath(stateDir, 1), 'utf8');
    const steps: WriteStep[] = [];
    // "~/x" passes the records' grammar (a path may start with "~"); as a grant it names a home directory.
    const result = plan({ records: [{ id: 'alice', files: ['src/cart/', '~/x'] }], afterWrite: (step) => steps.push(step) });
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.step, 'manifest');
    assert.match(result.message, /"~\/x" grants a home directory; nothing was written$/);
    assert.deepEqual([steps, result.written, result.removed], [[], [], []]);
    assert.equal(stoppedOnInput(result), true);
    assert.equal(readFileSync(manifestFile(), 'utf8'), before, 'the plan in place is untouched');
    assert.equal(readFileSync(waveSidecarPath(stateDir, 1), 'utf8'), aggregate);
  });

  it('writes both shapes, then a manifest whose allowedPaths is the union plus test siblings, bound to the writer', () => {
    const steps: WriteStep[] = [];
    const result = plan({ afterWrite: (step) => steps.push(step) });
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.deepEqual(steps.map((step) => step.kind), ['agent-file', 'agent-file', 'agent-file', 'aggregate', 'manifest']);
    const manifest = readManifest();
    assert.equal(manifest.session_id, 'sess-1');
    assert.equal(manifest.enforcement, 'strict');
    assert.deepEqual(manifest.blockedCommands, []);
    for (const entry of ['src/cart/total.ts', 'src/ui/', 'README.md', 'src/cart/total.test.ts']) {
      assert.ok(manifest.allowedPaths.includes(entry), `allowedPaths lacks ${entry}: ${manifest.allowedPaths}`);
    }
    assert.ok(schemaValidates(manifest));
    assert.equal(readWaveDeclaration(stateDir, 1, nodeDeclarationFs(stateDir)).status, 'complete');
    assert.ok(result.ok && /^ws1-/.test(result.digests.alice ?? ''));
  });

  it('leaves the manifest unbound (keys omitted) when the writer has no session id', () => {
    assert.equal(plan({ ownIds: new Set() }).ok, true);
    const manifest = readManifest();
    assert.equal('session_id' in manifest, false);
    assert.equal('semantic_session_id' in manifest, false);
  });

  it('holds the plan-write lock it is given from its first reading to its last write, and writes nothing when the lock cannot be had', () => {
    const events: string[] = [];
    const real = nodeDeclarationFs(stateDir);
    const observed: DeclarationFs = {
      ...real,
      readText(path) {
        events.push(`read ${basename(path)}`);
        return real.readText(path);
      },
      writeAtomic(path, text) {
        events.push(`write ${basename(path)}`);
        real.writeAtomic(path, text);
      },
    };
    const held = writeWavePlan(request({ lockPlan: () => (events.push('lock'), { held: true, release: () => events.push('release') }) }), observed);
    assert.equal(held.ok, true);
    assert.equal(events[0], 'lock');
    assert.equal(events[events.length - 1], 'release');
    assert.equal(events.filter((event) => event === 'lock' || event === 'release').length, 2);
    assert.ok(events.includes('write wave-scope.json'));
    rmSync(stateDir, { recursive: true, force: true });
    const refused = writeWavePlan(request({ lockPlan: () => ({ held: false, problem: 'another writer holds it' }) }), nodeDeclarationFs(stateDir));
    assert.equal(refused.ok, false);
    if (refused.ok) return;
    assert.equal(refused.step, 'state-dir');
    assert.equal(refused.message, 'another writer holds it');
    assert.deepEqual([refused.written, refused.removed], [[], []]);
    assert.equal(existsSync(stateDir), false, 'nothing written');
  });

  it('adds no test siblings for a role that does not write code', () => {
    plan({ role: 'docs' });
    assert.deepEqual(readManifest().allowedPaths, ['src/cart/total.ts', 'src/ui/', 'README.md']);
  });

  it('stops at assert-disjoint with both agents, entries and a witness, writing nothing', () => {
    const result = plan({
      records: [
        { id: 'alice', files: ['src/ui/button.ts'] },
        { id: 'bob', files: ['src/ui/'] },
      ],
    });
    assert.equal(result.ok, false);
    assert.equal(result.ok === false && result.step, 'assert-disjoint');
    assert.deepEqual(result.ok === false && result.collisions?.map((c) => [c.agents, c.witness]), [[['alice', 'bob'], 'src/ui/button.ts']]);
    assert.match(result.ok === false ? result.errors[0] ?? '' : '', /agents "alice" and "bob" both claim "src\/ui\/button\.ts"/);
    assert.equal(existsSync(stateDir), false);
  });

  it('finds a glob-against-glob collision with a known file as witness', () => {
    const result = plan({ records: [{ id: 'a', files: ['src/**/*.ts'] }, { id: 'b', files: ['src/ui/*'] }] });
    assert.equal(result.ok === false && result.step, 'assert-disjoint');
    assert.equal(result.ok === false && result.collisions?.[0]?.witness, 'src/ui/button.ts');
  });

  const invalid: Array<[string, Partial<WavePlanRequest>, RegExp]> = [
    ['a bad wave', { wave: 0 }, /wave must be a positive integer, got 0/],
    ['an empty role', { role: ' ' }, /role must be a non-empty string/],
    ['a bad enforcement', { enforcement: 'loose' as never }, /enforcement must be one of strict, warn, off; got loose/],
    ['bad records', { records: [{ id: 'a/b', files: [] }] }, /id "a\/b" must match/],
    ['an undeclared new file', { newFiles: ['src/other.ts'] }, /--new-file "src\/other\.ts" is not declared/],
  ];
  for (const [name, overrides, pattern] of invalid) {
    it(`stops at validate for ${name}, writing nothing`, () => {
      const result = plan(overrides);
      assert.equal(result.ok === false && result.step, 'validate');
      assert.match(result.ok === false ? result.errors.join('\n') : '', pattern);
      assert.equal(existsSync(stateDir), false);
    });
  }

  it("refuses to overwrite another session's manifest", () => {
    mkdirSync(stateDir, { recursive: true });
    const peer = JSON.stringify({ version: 1, wave: 1, role: 'implementation', allowedPaths: ['x'], blockedCommands: [], session_id: 'peer' });
    writeFileSync(manifestFile(), peer);
    const result = plan();
    assert.equal(result.ok === false && result.step, 'state-dir');
    assert.match(result.ok === false ? result.message : '', /belongs to another session/);
    assert.equal(readFileSync(manifestFile(), 'utf8'), peer);
    assert.equal(existsSync(join(stateDir, 'filescopes')), false);
  });

  it('replaces the standing manifest of the same wave with a skeleton before touching its declaration', () => {
    assert.equal(plan().ok, true);
    const steps: Array<{ step: WriteStep; manifest: unknown; aggregate: boolean }> = [];
    const result = plan({
      records: [{ id: 'alice', files: ['src/cart/'] }],
      afterWrite: (step) => steps.push({ step, manifest: readManifest(), aggregate: existsSync(waveSidecarPath(stateDir, 1)) }),
    });
    assert.equal(result.ok, true);
    assert.deepEqual(steps.map((entry) => entry.step.kind), ['manifest-skeleton', 'invalidate-aggregate', 'agent-file', 'stale-agent-file', 'stale-agent-file', 'aggregate', 'manifest']);
    // While the aggregate is being replaced, the manifest grants nothing.
    for (const entry of steps.slice(0, -2)) assert.deepEqual((entry.manifest as { allowedPaths: string[] }).allowedPaths, []);
    assert.ok(readManifest().allowedPaths.includes('src/cart/'));
    assert.equal(existsSync(agentScopePath(stateDir, 1, 'bob')), false);
  });

  it('writes as its skeleton exactly the text manifestSkeletonText gives for the manifest it replaces', () => {
    assert.equal(plan({ blockedCommands: ['git push'] }).ok, true);
    const previous = readManifest();
    const real = nodeDeclarationFs(stateDir);
    const written: Array<{ path: string; text: string }> = [];
    const recording: DeclarationFs = { ...real, writeAtomic: (path, text) => (written.push({ path, text }), real.writeAtomic(path, text)) };
    assert.equal(plan({ records: [{ id: 'alice', files: ['src/cart/'] }] }, recording).ok, true);
    const settings = { wave: 1, role: 'implementation', enforcement: 'strict' as const, blockedCommands: ['git push'], ownIds: new Set(['sess-1']) };
    const skeleton = manifestSkeletonText(settings, previous);
    assert.ok(skeleton !== undefined);
    assert.deepEqual(written[0], { path: manifestFile(), text: skeleton }, 'the first write is the skeleton');
    assert.deepEqual({ ...JSON.parse(skeleton), allowedPaths: previous.allowedPaths }, previous, 'the skeleton differs from the manifest it replaces only in granting nothing');
  });

  it('computes the grants of the records at hand, whichever were prepared before (plannedManifestText)', () => {
    const settings = { wave: 1, role: 'implementation', enforcement: 'strict' as const, blockedCommands: [], ownIds: new Set(['sess-1']) };
    const prepared = [{ id: 'alice', files: ['src/cart/total.ts'] }];
    const first = plannedManifestText(settings, prepared);
    prepared[0]?.files.push('src/ui/');
    const second = plannedManifestText(settings, prepared);
    assert.notEqual(second, first, 'records changed after they were prepared are computed anew');
    assert.ok(JSON.parse(second).allowedPaths.includes('src/ui/'));
    // The chain, over other records than the ones prepared last, writes their own grants.
    assert.equal(plan({ records: [{ id: 'bob', files: ['src/ui/'] }] }).ok, true);
    assert.deepEqual(readManifest().allowedPaths, ['src/ui/']);
    assert.equal(readFileSync(manifestFile(), 'utf8'), plannedManifestText(settings, [{ id: 'bob', files: ['src/ui/'] }]));
    assert.equal(plannedManifestText(settings, [{ id: 'alice', files: ['src/cart/total.ts'] }]), first);
  });

  it('manifestSkeletonText: a skeleton only over a manifest of the same wave that grants something', () => {
    const settings = { wave: 2, role: 'implementation', blockedCommands: [], ownIds: new Set<string>() };
    const manifest = (wave: number, allowedPaths: string[]) => ({ version: 1 as const, wave, role: 'implementation', enforcement: 'strict' as const, allowedPaths, blockedCommands: [] });
    const cases: Array<[string, Parameters<typeof manifestSkeletonText>[1], boolean]> = [
      ['no manifest there', undefined, false],
      ['a manifest of another wave', manifest(1, ['a/']), false],
      ['a manifest of the same wave that grants nothing (a skeleton already)', manifest(2, []), false],
      ['a manifest of the same wave that grants something', manifest(2, ['a/']), true],
    ];
    for (const [title, previous, expected] of cases) {
      const text = manifestSkeletonText(settings, previous);
      assert.equal(text !== undefined, expected, title);
      if (text !== undefined) assert.deepEqual(JSON.parse(text), manifest(2, []), title);
    }
  });

  it('keeps the manifest of another wave until the new one is proven, and on a collision', () => {
    assert.equal(plan().ok, true);
    const before = readFileSync(manifestFile(), 'utf8');
    const failed = plan({ wave: 2, records: [{ id: 'a', files: ['x'] }, { id: 'b', files: ['x'] }] });
    assert.equal(failed.ok, false);
    assert.equal(readFileSync(manifestFile(), 'utf8'), before);
    assert.equal(plan({ wave: 2, records: [{ id: 'a', files: ['x'] }] }).ok, true);
    assert.equal(readManifest().wave, 2);
    assert.equal(readWaveDeclaration(stateDir, 1, nodeDeclarationFs(stateDir)).status, 'complete');
  });

  it('carries blockedCommands and gates over from the manifest it replaces unless given', () => {
    plan({ blockedCommands: ['git push'], gates: { echo: true } });
    plan({ wave: 2 });
    assert.deepEqual(readManifest().blockedCommands, ['git push']);
    assert.deepEqual(readManifest().gates, { echo: true });
    plan({ wave: 3, blockedCommands: [] });
    assert.deepEqual(readManifest().blockedCommands, []);
  });

  it('converges: the same plan twice gives the same files', () => {
    plan();
    const first = readFileSync(manifestFile(), 'utf8') + readFileSync(waveSidecarPath(stateDir, 1), 'utf8');
    plan();
    assert.equal(readFileSync(manifestFile(), 'utf8') + readFileSync(waveSidecarPath(stateDir, 1), 'utf8'), first);
  });

  it('stops at assert-disjoint when the aggregate on disk is not what was proven (a concurrent writer)', () => {
    const result = plan(
      {},
      afterAggregate((real, path, text) => {
        real.writeAtomic(agentScopePath(stateDir, 1, 'mallory'), '["src/ui/button.ts"]\n');
        real.writeAtomic(path, JSON.stringify([...JSON.parse(text), { id: 'mallory', files: ['src/ui/button.ts'] }]));
      }),
    );
    assert.equal(result.ok === false && result.step, 'assert-disjoint');
    assert.match(result.ok === false ? result.message : '', /aggregate on disk is not disjoint/);
    assert.equal(existsSync(manifestFile()), false);
  });

  it('proves again what it reads back when an entry differs, even with the same agents in the same order', () => {
    const result = plan(
      {},
      afterAggregate((real, path, text) => {
        // alice now claims a file of bob's, in her own file and in the aggregate alike: a complete declaration.
        real.writeAtomic(agentScopePath(stateDir, 1, 'alice'), '[\n  "src/ui/button.ts"\n]\n');
        const records = JSON.parse(text) as Array<{ id: string; files: string[] }>;
        real.writeAtomic(path, JSON.stringify(records.map((record) => (record.id === 'alice' ? { id: 'alice', files: ['src/ui/button.ts'] } : record))));
      }),
    );
    assert.equal(result.ok === false && result.step, 'assert-disjoint', JSON.stringify(result));
    assert.match(result.ok === false ? result.errors.join('\n') : '', /"alice" and "bob" both claim "src\/ui\/button\.ts"/);
    assert.equal(existsSync(manifestFile()), false);
  });

  it('stops at materialize when the declaration on disk is not complete after writing it', () => {
    const result = plan({}, afterAggregate(() => rmSync(agentScopePath(stateDir, 1, 'bob'))));
    assert.equal(result.ok === false && result.step, 'materialize');
    assert.match(result.ok === false ? result.message : '', /^the declaration of wave 1 on disk is inconsistent: agent "bob" has no scope file in wave 1/);
    assert.equal(existsSync(manifestFile()), false);
  });

  it('refuses an entry in the way of its writes before the first write (step state-dir, nothing written), and its own writes still stop at materialize when the look ahead misses it', () => {
    assert.equal(plan().ok, true);
    const before = { manifest: readFileSync(manifestFile(), 'utf8'), aggregate: readFileSync(waveSidecarPath(stateDir, 1), 'utf8') };
    const alice = agentScopePath(stateDir, 1, 'alice');
    rmSync(alice);
    mkdirSync(alice);
    const changed = { records: [{ id: 'alice', files: ['src/cart/'] }, { id: 'bob', files: ['src/ui/'] }] };
    const refused = plan(changed);
    assert.ok(!refused.ok);
    assert.equal(refused.step, 'state-dir');
    assert.deepEqual(refused.inTheWay, { path: alice, found: 'not-a-file' });
    assert.deepEqual([refused.written, refused.removed], [[], []]);
    assert.equal(stoppedOnInput(refused), true);
    assert.deepEqual({ manifest: readFileSync(manifestFile(), 'utf8'), aggregate: readFileSync(waveSidecarPath(stateDir, 1), 'utf8') }, before);

    // A file system whose look ahead misses it, as when it is planted just after the look.
    const stopped = plan(changed, { ...nodeDeclarationFs(stateDir), findInTheWay: () => undefined });
    assert.ok(!stopped.ok);
    assert.equal(stopped.step, 'materialize');
    assert.equal(stopped.inTheWay, undefined);
    assert.equal(existsSync(waveSidecarPath(stateDir, 1)), false, 'the aggregate was removed first: the wave is absent');
    assert.equal(JSON.parse(readFileSync(manifestFile(), 'utf8')).allowedPaths.length, 0, 'the skeleton stands, granting nothing');
  });

  describe('prepareWavePlan, then commitWavePlan (the chain in two calls)', () => {
    const twoAgents = (overrides: Partial<WavePlanRequest> = {}) => request({ records: [{ id: 'alice', files: ['src/cart/'] }, { id: 'bob', files: ['src/ui/'] }], knownFiles: undefined, ...overrides });
    /** The state directory's file system, every write and removal it is asked for recorded. */
    const recording = () => {
      const real = nodeDeclarationFs(stateDir);
      const changes: string[] = [];
      const fs: DeclarationFs = {
        ...real,
        writeAtomic: (path, text) => (changes.push(`write ${path}`), real.writeAtomic(path, text)),
        remove: (path) => (changes.push(`remove ${path}`), real.remove(path)),
      };
      return { fs, changes };
    };

    it('prepares without writing, then commits exactly what one writeWavePlan writes', () => {
      const { fs, changes } = recording();
      const prepared = prepareWavePlan(twoAgents(), fs);
      assert.equal(prepared.ok, true, JSON.stringify(prepared));
      assert.deepEqual(changes, [], 'preparing reads only');
      assert.equal(existsSync(stateDir), false);
      const result = commitWavePlan((prepared as { prepared: PreparedWavePlan }).prepared, fs);
      assert.equal(result.ok, true, JSON.stringify(result));
      const twoCalls = readManifest();
      rmSync(stateDir, { recursive: true });
      assert.equal(writeWavePlan(twoAgents(), nodeDeclarationFs(stateDir)).ok, true);
      assert.deepEqual(twoCalls, readManifest());
      assert.deepEqual(result.ok ? result.digests : undefined, prepared.ok ? { ...prepared.prepared.digests } : undefined, 'the digests made when it was prepared');
    });

    it('stops a plan that cannot be written at prepare, with nothing written', () => {
      const { fs, changes } = recording();
      const prepared = prepareWavePlan(twoAgents({ records: [{ id: 'alice', files: ['src/'] }, { id: 'bob', files: ['src/ui/'] }] }), fs);
      assert.equal(prepared.ok === false && prepared.step, 'assert-disjoint');
      assert.deepEqual(changes, []);
    });

    it('prepares again when the manifest changed between the two: another session\'s manifest is not overwritten', () => {
      const { fs, changes } = recording();
      const prepared = prepareWavePlan(twoAgents(), fs);
      assert.equal(prepared.ok, true);
      mkdirSync(stateDir, { recursive: true });
      writeFileSync(manifestFile(), JSON.stringify({ version: 1, wave: 1, role: 'r', allowedPaths: ['src/'], blockedCommands: [], session_id: 'peer' }));
      const result = commitWavePlan((prepared as { prepared: PreparedWavePlan }).prepared, fs);
      assert.equal(result.ok === false && result.step, 'state-dir', JSON.stringify(result));
      assert.match(result.ok === false ? result.message : '', /belongs to another session/);
      assert.deepEqual(changes, []);
      assert.equal(readManifest().session_id, 'peer');
    });

    it('prepares again when a manifest of the same wave appeared since: its grants are withdrawn by the skeleton first', () => {
      const { fs, changes } = recording();
      const prepared = prepareWavePlan(twoAgents(), fs);
      assert.equal(prepared.ok, true);
      mkdirSync(stateDir, { recursive: true });
      writeFileSync(manifestFile(), JSON.stringify({ version: 1, wave: 1, role: 'implementation', allowedPaths: ['src/'], blockedCommands: [] }));
      const result = commitWavePlan((prepared as { prepared: PreparedWavePlan }).prepared, fs);
      assert.equal(result.ok, true, JSON.stringify(result));
      assert.equal(changes[0], `write ${manifestFile()}`, 'the skeleton, before the declaration');
      assert.deepEqual(readManifest().allowedPaths, ['src/cart/', 'src/ui/']);
    });

    it('commits only a plan that prepareWavePlan made', () => {
      const prepared = prepareWavePlan(twoAgents(), nodeDeclarationFs(stateDir));
      assert.equal(prepared.ok, true);
      const copy = { ...(prepared as { prepared: PreparedWavePlan }).prepared };
      assert.throws(() => commitWavePlan(copy, nodeDeclarationFs(stateDir)), /only a plan prepareWavePlan made/);
      assert.equal(existsSync(stateDir), false);
    });
  });

  describe('resolveWriteStateDir', () => {
    const put = (name: string, session?: string) => {
      mkdirSync(join(root, name), { recursive: true });
      writeFileSync(join(root, name, 'wave-scope.json'), JSON.stringify({ version: 1, wave: 1, role: 'r', allowedPaths: [], blockedCommands: [], ...(session ? { session_id: session } : {}) }));
    };
    const fs = { readText: readTextIfExists };
    it('defaults to .claude', () => assert.deepEqual(resolveWriteStateDir(root, new Set(['me']), fs), { stateDir: join(root, '.claude') }));
    it('uses the directory of its own manifest', () => {
      put('.codex', 'me');
      assert.deepEqual(resolveWriteStateDir(root, new Set(['me']), fs), { stateDir: join(root, '.codex') });
    });
    it("avoids a peer's .claude and takes the first free candidate", () => {
      put('.claude', 'peer');
      assert.deepEqual(resolveWriteStateDir(root, new Set(['me']), fs), { stateDir: join(root, '.pi') });
    });
    it('gives up when every candidate is a peer\'s', () => {
      for (const name of ['.pi', '.cursor', '.codex', '.claude']) put(name, 'peer');
      const result = resolveWriteStateDir(root, new Set(['me']), fs);
      assert.match('problem' in result ? result.problem : '', /every state directory .* holds another session's manifest/);
    });
  });
});
