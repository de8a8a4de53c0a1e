// Crash safety of the declaration writer and the safe chain: a real writer process is SIGKILLed after
// every possible file-system change, and after every kill the readers must see either the previous
// complete declaration or the new complete one (or, between the two, no aggregate at all), never an
// aggregate whose per-agent files are missing or differ, and never a manifest granting anything
// without a proven-disjoint aggregate it was computed from.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { findCollisions } from '../../src/planner/scope/collisions';
import { listDeclaredWaves, readWaveDeclaration } from '../../src/planner/plan/declarationStore';
import type { DeclaredRecord } from '../../src/planner/plan/declarationInput';
import { validateManifest } from '../../src/planner/plan/manifest';
import { nodeDeclarationFs } from '../../src/node/declarationFs';
import { listRepositoryFiles } from '../../src/node/git';
import { union } from '../../src/planner/scope/scopeUnion';
import { expandTestSiblings } from '../../src/planner/scope/testSiblings';
import { createTempGitRepo } from '../support/tempGitRepo';
import type { TempGitRepo } from '../support/tempGitRepo';

const driverSource = join(__dirname, 'crashSafety.driver.ts');
// Bundled once with esbuild so each killed process starts in plain node (no TypeScript loader).
const bundleDir = mkdtempSync(join(tmpdir(), 'wave-scope-crash-driver-'));
const driver = join(bundleDir, 'driver.cjs');

interface Plan {
  mode: 'plan' | 'materialize';
  wave: number;
  role: string;
  records: DeclaredRecord[];
}

interface Scenario {
  name: string;
  /** Written completely before the interrupted run. */
  before: Plan[];
  /** The run that is killed. */
  run: Plan;
}

const wave1: DeclaredRecord[] = [
  { id: 'alice', files: ['src/cart/total.ts'] },
  { id: 'bob', files: ['src/ui/'] },
  { id: 'coordinator', files: ['README.md'] },
];
const wave1Changed: DeclaredRecord[] = [
  { id: 'alice', files: ['src/cart/'] },
  { id: 'carol', files: ['docs/**'] },
];

const scenarios: Scenario[] = [
  { name: 'a first plan into an empty repository', before: [], run: { mode: 'plan', wave: 1, role: 'implementation', records: wave1 } },
  {
    name: 're-planning the wave the manifest names (agents dropped, changed and added)',
    before: [{ mode: 'plan', wave: 1, role: 'implementation', records: wave1 }],
    run: { mode: 'plan', wave: 1, role: 'implementation', records: wave1Changed },
  },
  {
    name: 'planning the next wave while the manifest names the previous one',
    before: [{ mode: 'plan', wave: 1, role: 'implementation', records: wave1 }],
    run: { mode: 'plan', wave: 2, role: 'implementation', records: wave1Changed },
  },
  {
    name: 're-materializing a wave (declarations only)',
    before: [{ mode: 'materialize', wave: 3, role: '', records: wave1 }],
    run: { mode: 'materialize', wave: 3, role: '', records: wave1Changed },
  },
];

function runDriver(repo: TempGitRepo, plan: Plan, killAfter: number | undefined) {
  const configPath = join(repo.root, '..', `${repo.root.split('/').pop()}-driver.json`);
  writeFileSync(
    configPath,
    JSON.stringify({
      ...plan,
      repoRoot: repo.root,
      stateDir: join(repo.root, '.claude'),
      ownIds: ['sess-crash'],
      knownFiles: listRepositoryFiles(repo.root),
      killAfter,
    }),
  );
  const child = spawnSync(process.execPath, [driver, configPath], { encoding: 'utf8' });
  return child;
}

interface Snapshot {
  /** wave → records of its complete declaration (waves without one are absent here). */
  declarations: Map<number, string>;
  manifest: string | undefined;
}

/** Checks the invariants and returns what the readers see. */
function observe(repo: TempGitRepo): Snapshot {
  const stateDir = join(repo.root, '.claude');
  const fs = nodeDeclarationFs(stateDir);
  const declarations = new Map<number, string>();
  const complete = new Map<number, DeclaredRecord[]>();
  for (const wave of listDeclaredWaves(stateDir, fs)) {
    const read = readWaveDeclaration(stateDir, wave, fs);
    assert.ok(read.status === 'complete' || read.status === 'absent', `wave ${wave} is ${read.status}: ${read.problems.join('; ')}`);
    if (read.status === 'complete' && read.records !== undefined) {
      declarations.set(wave, JSON.stringify(read.records));
      complete.set(wave, read.records);
    }
  }
  const manifestFile = join(stateDir, 'wave-scope.json');
  let manifest: string | undefined;
  if (existsSync(manifestFile)) {
    manifest = readFileSync(manifestFile, 'utf8');
    const checked = validateManifest(JSON.parse(manifest));
    assert.deepEqual(checked.errors, [], 'the manifest on disk is always a valid one');
    const standing = checked.manifest;
    if (standing !== undefined && standing.allowedPaths.length > 0) {
      const records = complete.get(standing.wave);
      assert.ok(records !== undefined, `the manifest grants paths for wave ${standing.wave}, whose aggregate is not complete`);
      assert.equal(findCollisions(records, { knownFiles: listRepositoryFiles(repo.root) }).ok, true, 'the aggregate behind the manifest is disjoint');
      assert.deepEqual(standing.allowedPaths, expandTestSiblings(union(records), { role: standing.role }), 'allowedPaths is the union of that very aggregate');
    }
  }
  return { declarations, manifest };
}

describe('crash safety: SIGKILL after every write step (real writer process, real git repository)', function () {
  this.timeout(180_000);
  before(() => {
    buildSync({ entryPoints: [driverSource], outfile: driver, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'error' });
  });
  after(() => rmSync(bundleDir, { recursive: true, force: true }));

  for (const scenario of scenarios) {
    describe(scenario.name, () => {
      let repo: TempGitRepo | undefined;
      // One repository per scenario; every attempt starts from its own state directory rebuilt from scratch.
      const fresh = (): TempGitRepo => {
        repo ??= createTempGitRepo({ initialFiles: { 'src/cart/total.ts': 'x', 'src/ui/button.ts': 'y', 'README.md': '#', 'docs/guide.md': 'g' } });
        rmSync(join(repo.root, '.claude'), { recursive: true, force: true });
        for (const plan of scenario.before) {
          const done = runDriver(repo, plan, undefined);
          assert.equal(done.status, 0, done.stderr);
        }
        return repo;
      };
      after(() => repo?.remove());

      it('leaves the previous or the new complete declaration after every kill, and converges when re-run', () => {
        const repo = fresh();
        const previous = observe(repo);
        const full = runDriver(repo, scenario.run, undefined);
        assert.equal(full.status, 0, full.stderr);
        const { ok, steps } = JSON.parse(full.stdout) as { ok: boolean; steps: string[] };
        assert.equal(ok, true);
        const next = observe(repo);
        assert.ok(steps.length >= 3, `only ${steps.length} steps: ${steps}`);

        const wave = scenario.run.wave;
        let sawNew = false;
        for (let killAfter = 1; killAfter <= steps.length; killAfter += 1) {
          fresh();
          const killed = runDriver(repo, scenario.run, killAfter);
          assert.equal(killed.signal, 'SIGKILL', `the writer was not killed after step ${killAfter} (${steps[killAfter - 1]}): ${killed.stderr}`);
          const seen = observe(repo);
          const declared = seen.declarations.get(wave);
          const label = `after step ${killAfter} (${steps[killAfter - 1]})`;
          if (declared !== undefined) {
            assert.ok(declared === previous.declarations.get(wave) || declared === next.declarations.get(wave), `${label}: a declaration that is neither the old nor the new one`);
            if (declared === next.declarations.get(wave) && declared !== previous.declarations.get(wave)) sawNew = true;
            else assert.equal(sawNew, false, `${label}: the old declaration came back after the new one was visible`);
          }
          // Other waves are never touched.
          for (const [other, records] of previous.declarations) {
            if (other !== wave) assert.equal(seen.declarations.get(other), records, `${label}: wave ${other} changed`);
          }
          // The manifest is the old one, a skeleton granting nothing, or the new one.
          if (seen.manifest !== previous.manifest && seen.manifest !== next.manifest) {
            assert.deepEqual(JSON.parse(seen.manifest ?? '{}').allowedPaths, [], `${label}: an unexpected manifest`);
          }
          // Re-running the interrupted command converges to exactly the new state.
          const rerun = runDriver(repo, scenario.run, undefined);
          assert.equal(rerun.status, 0, rerun.stderr);
          const converged = observe(repo);
          assert.equal(converged.manifest, next.manifest, `${label}: re-run did not converge (manifest)`);
          assert.deepEqual([...converged.declarations], [...next.declarations], `${label}: re-run did not converge (declarations)`);
        }
        assert.ok(sawNew, 'the last step must make the new declaration visible');
      });
    });
  }
});
