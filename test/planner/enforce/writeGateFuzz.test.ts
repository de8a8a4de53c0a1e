// Property: no spelling of an out-of-scope target is ever allowed. 100,000 random spellings of paths
// in and out of the scope (with `..`, `.`, `//`, `\`, NUL, case variants, NFD, links in both
// directions, dangling links, absolute and relative forms) go through the gate in-process. For
// every allowed one the oracle asks the kernel where the write really lands: it opens the path for
// append (creating it if needed), takes realpath of what it opened, and checks that destination
// against the scope with a brute-force matcher that shares no code with the scope engine.
import assert from 'node:assert/strict';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeTargetFileSystem } from '../../../src/node/hookFileSystem';
import { compileGrants, decideWrite } from '../../../src/planner/enforce/writeDecision';
import type { ManifestState } from '../../../src/planner/enforce/writeDecision';
import { resolveWriteTarget } from '../../../src/planner/enforce/writeTarget';

const SPELLINGS = 100_000;

/** A small deterministic PRNG (mulberry32), so a failure names a reproducible seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('write gate fuzz: no out-of-scope spelling is ever allowed', function () {
  this.timeout(120_000);
  let base: string;
  let root: string;
  let outside: string;

  before(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-fuzz-')));
    root = join(base, 'repo');
    outside = join(base, 'elsewhere');
    for (const dir of ['in/sub', 'out/sub', 'inside-not', 'IN']) mkdirSync(join(root, dir), { recursive: true });
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(root, 'in/a.ts'), 'a');
    writeFileSync(join(root, 'out/b.ts'), 'b');
    writeFileSync(join(root, 'caf\u00e9.md'), 'c');
    symlinkSync('../out', join(root, 'in/to-out'));
    symlinkSync('sub', join(root, 'in/to-sub'));
    symlinkSync('../in', join(root, 'out/to-in'));
    symlinkSync(outside, join(root, 'in/abs-out'));
    symlinkSync('../out/fresh.ts', join(root, 'in/dangling-out'));
    symlinkSync('fresh-inside.ts', join(root, 'in/dangling-in'));
    symlinkSync('../..', join(root, 'in/sub/up2'));
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  /** The scope, brute force: everything under `in/`, plus the one file `café.md` (NFC). */
  function oracleInScope(destination: string): boolean {
    const normal = destination.normalize('NFC');
    if (!normal.startsWith(`${root}/`)) return false;
    const relative = normal.slice(root.length + 1);
    return relative.startsWith('in/') || relative === 'caf\u00e9.md';
  }

  const pieces = ['in', 'out', 'sub', 'to-out', 'to-sub', 'to-in', 'abs-out', 'dangling-out', 'dangling-in', 'up2', '..', '.', '', 'IN', 'In', 'inside-not', 'a.ts', 'b.ts', 'new.ts', 'caf\u00e9.md', 'cafe\u0301.md', 'x'];

  function spelling(next: () => number): string {
    const count = 1 + Math.floor(next() * 6);
    const parts: string[] = [];
    // Half the spellings start in the scope, so both sides of the boundary are well populated.
    if (next() < 0.5) parts.push('in');
    for (let index = 0; index < count; index += 1) parts.push(pieces[Math.floor(next() * pieces.length)] ?? 'x');
    let path = parts.join('/');
    const roll = next();
    if (roll < 0.3) path = `${root}/${path}`;
    else if (roll < 0.4) path = `./${path}`;
    else if (roll < 0.45) path = `${root}//${path}`;
    if (next() < 0.05) path = `${path}/.`;
    if (next() < 0.03) path = path.replace('/', '\\');
    if (next() < 0.01) path = `${path}\0`;
    return path;
  }

  it(`checks ${SPELLINGS.toLocaleString('en')} spellings; every allowed one lands in scope`, () => {
    const manifest: ManifestState = {
      kind: 'loaded',
      path: join(root, '.claude/wave-scope.json'),
      manifest: { wave: 1, role: 'implementation', enforcement: 'strict', allowedPaths: ['in/', 'caf\u00e9.md'] },
      session: 'own',
    };
    // Two spellings of one scope: plain entries and globs (both decided by the scope engine).
    const grantSets = [compileGrants(['in/', 'caf\u00e9.md'], { writeRoot: root }), compileGrants(['in/**', '{caf\u00e9.md,none.md}'], { writeRoot: root })];
    const next = random(20261130);
    let allowed = 0;
    let written = 0;
    const started = Date.now();
    for (let index = 0; index < SPELLINGS; index += 1) {
      const raw = spelling(next);
      const target = resolveWriteTarget(raw, { cwd: root, writeRoot: root, fs: nodeTargetFileSystem });
      const decision = decideWrite({ targets: [target], manifest, dispatchedAgent: false, controlPaths: [], writeRoot: root }, grantSets[index % 2]);
      if (decision.decision !== 'allow') continue;
      allowed += 1;
      const absolute = raw.startsWith('/') ? raw : `${root}/${raw}`;
      const existed = existsSync(absolute);
      let descriptor: number;
      try {
        descriptor = openSync(absolute, 'a');
      } catch {
        continue; // The kernel refuses the write (missing parent, a directory): nothing can leak.
      }
      closeSync(descriptor);
      // realpath(3) itself: Node's JS realpathSync folds `..` lexically before following links, the kernel does not.
      const destination = realpathSync.native(absolute);
      if (!existed) {
        unlinkSync(destination);
        written += 1;
      }
      assert.ok(oracleInScope(destination), `seed 20261130, spelling #${index} ${JSON.stringify(raw)} was allowed but writes ${destination}`);
    }
    // The gate must not pass this test by denying everything: a fair share of spellings lands in scope.
    assert.ok(allowed > SPELLINGS / 20, `only ${allowed} of ${SPELLINGS} spellings were allowed`);
    assert.ok(written > 100, `only ${written} allowed spellings created a file`);
    console.log(`      fuzz: ${SPELLINGS} spellings, ${allowed} allowed (${written} fresh files written and removed), ${Date.now() - started} ms`);
  });

  it('denies the out-of-scope spellings the oracle names (the gate is not vacuous in the other direction)', () => {
    const manifest: ManifestState = {
      kind: 'loaded',
      path: join(root, '.claude/wave-scope.json'),
      manifest: { wave: 1, role: 'implementation', enforcement: 'strict', allowedPaths: ['in/'] },
      session: 'own',
    };
    for (const raw of ['in/to-out/b.ts', 'in/abs-out/x', 'in/dangling-out', 'in/sub/up2/out/b.ts', 'IN/a.ts', 'in/../out/b.ts', 'out/to-in/../b.ts']) {
      const target = resolveWriteTarget(raw, { cwd: root, writeRoot: root, fs: nodeTargetFileSystem });
      const decision = decideWrite({ targets: [target], manifest, dispatchedAgent: false, controlPaths: [], writeRoot: root });
      assert.equal(decision.decision, 'deny', raw);
    }
  });
});
