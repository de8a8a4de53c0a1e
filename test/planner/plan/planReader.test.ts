import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentScopePath, waveSidecarPath } from '../../../src/planner/plan/declarationPaths';
import { materializeWave } from '../../../src/planner/plan/declarationStore';
import { nodeDeclarationFs } from '../../../src/node/declarationFs';
import { readPlan } from '../../../src/planner/plan/planReader';
import { writeWavePlan } from '../../../src/planner/plan/planWriter';
import { scopeDigest } from '../../../src/planner/scope/scopeDigest';

describe('readPlan (real directories)', () => {
  let root: string;
  let stateDir: string;
  const files = ['src/a.ts', 'src/b.ts', 'src/ui/x.ts', 'src/ui/y.ts', 'docs/readme.md'];
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'wave-scope-reader-'));
    stateDir = join(root, '.claude');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const fs = () => nodeDeclarationFs(root);

  it('shows an empty plan with the default state directory', () => {
    assert.deepEqual(readPlan(root, { files }, fs()), {
      version: 1,
      stateDir: '.claude',
      manifest: {
        path: '.claude/wave-scope.json', found: false, session: 'unknown', boundTo: [], wave: null, role: null, enforcement: null,
        allowedPaths: [], problem: null, warnings: [],
      },
      activeWave: null,
      waves: [],
    });
  });

  it('shows every wave with agents, entries, match counts, digests, collisions and the active wave', () => {
    const plan = writeWavePlan(
      {
        repoRoot: root, stateDir, wave: 2, role: 'docs', ownIds: new Set(['me']), knownFiles: files,
        records: [{ id: 'alice', files: ['src/a.ts', 'src/ui/'] }, { id: 'coordinator', files: ['docs/*.md'] }],
      },
      nodeDeclarationFs(stateDir),
    );
    assert.equal(plan.ok, true);
    // Wave 1 is declared with a collision (materialize does not prove disjointness; plan show reports it).
    materializeWave({ stateDir, wave: 1, records: [{ id: 'x', files: ['src/*.ts'] }, { id: 'y', files: ['src/b.ts'] }] }, nodeDeclarationFs(stateDir));
    const view = readPlan(root, { ownIds: new Set(['me']), files }, fs());
    assert.equal(view.activeWave, 2);
    assert.equal(view.manifest.session, 'own');
    assert.deepEqual(view.manifest.boundTo, ['me']);
    assert.equal(view.manifest.role, 'docs');
    assert.deepEqual(view.waves.map((wave) => [wave.wave, wave.status, wave.active]), [[1, 'complete', false], [2, 'complete', true]]);
    const wave2 = view.waves[1];
    assert.deepEqual(wave2?.agents, [
      {
        id: 'alice', coordinator: false, scopeFile: '.claude/filescopes/wave-2/alice.json', digest: scopeDigest(['src/a.ts', 'src/ui/']),
        entries: [{ entry: 'src/a.ts', kind: 'plain', matches: 1 }, { entry: 'src/ui/', kind: 'glob', matches: 2 }],
      },
      {
        id: 'coordinator', coordinator: true, scopeFile: '.claude/filescopes/wave-2/coordinator.json', digest: scopeDigest(['docs/*.md']),
        entries: [{ entry: 'docs/*.md', kind: 'glob', matches: 1 }],
      },
    ]);
    assert.deepEqual(wave2?.collisions, []);
    assert.deepEqual(view.waves[0]?.collisions.map((c) => [c.agents, c.witness]), [[['x', 'y'], 'src/b.ts']]);
    assert.equal(view.waves[0]?.sidecar, '.claude/filescopes/wave-1.scopes.json');
  });

  it('reports an interrupted wave, a stray file and an unusable manifest', () => {
    materializeWave({ stateDir, wave: 1, records: [{ id: 'a', files: ['src/a.ts'] }] }, nodeDeclarationFs(stateDir));
    materializeWave({ stateDir, wave: 2, records: [{ id: 'b', files: ['src/b.ts'] }] }, nodeDeclarationFs(stateDir));
    rmSync(waveSidecarPath(stateDir, 2));
    writeFileSync(agentScopePath(stateDir, 1, 'ghost'), '["**"]');
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(join(stateDir, 'wave-scope.json'), '{not json');
    const view = readPlan(root, { files }, fs());
    assert.equal(view.manifest.found, true);
    assert.equal(view.manifest.problem?.reason, 'not-json');
    assert.equal(view.activeWave, null);
    assert.equal(view.waves[0]?.status, 'inconsistent');
    assert.deepEqual(view.waves[0]?.strayAgentFiles, ['ghost']);
    assert.equal(view.waves[1]?.status, 'absent');
    assert.deepEqual(view.waves[1]?.agents, []);
  });

  it('survives a hand-edited aggregate with an entry the grammar refuses', () => {
    materializeWave({ stateDir, wave: 1, records: [{ id: 'a', files: ['src/a.ts'] }] }, nodeDeclarationFs(stateDir));
    writeFileSync(waveSidecarPath(stateDir, 1), JSON.stringify([{ id: 'a', files: ['src/a.ts', '../escape'] }]));
    const view = readPlan(root, { files }, fs());
    assert.deepEqual(view.waves[0]?.agents[0]?.entries.map((entry) => [entry.entry, entry.matches]), [['src/a.ts', 1], ['../escape', 0]]);
    assert.equal(view.waves[0]?.agents[0]?.digest, null);
    assert.equal(view.waves[0]?.status, 'inconsistent');
  });

  it('reads an explicit state directory', () => {
    const custom = join(root, 'plans');
    materializeWave({ stateDir: custom, wave: 5, records: [{ id: 'a', files: ['src/a.ts'] }] }, nodeDeclarationFs(custom));
    const view = readPlan(root, { stateDir: custom, files }, fs());
    assert.equal(view.stateDir, 'plans');
    assert.deepEqual(view.waves.map((wave) => wave.wave), [5]);
  });

  it('is stable JSON: the same disk gives the same text', () => {
    materializeWave({ stateDir, wave: 1, records: [{ id: 'a', files: ['src/a.ts'] }] }, nodeDeclarationFs(stateDir));
    assert.equal(JSON.stringify(readPlan(root, { files }, fs())), JSON.stringify(readPlan(root, { files }, fs())));
  });
});
