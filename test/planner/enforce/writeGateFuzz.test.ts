// Property: no spelling of an out-of-scope target is ever allowed. Random spellings of paths in and
// out of the scope (with `..`, `.`, `//`, `\`, NUL, case variants, NFD, links in both directions,
// dangling links, absolute and relative forms) go through the gate in-process. For every allowed one
// the oracle asks the kernel where the write really lands: it opens the path for append (creating it
// if needed), takes realpath of what it opened, and checks that destination, and the directory entry
// a rename-writer would replace, against the scope with a brute-force matcher that shares no code with
// the scope engine.
//
// The second property runs the whole gate (runWriteGate: repository chains, manifests, control state,
// git config) as a dispatched agent in a checkout with a nested repository holding a permissive wave of
// its own, a state directory reached through a link, links into control state and a root whose name
// has an accented letter, spelled in NFC, NFD and with the Kelvin sign.
import assert from 'node:assert/strict';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { nodeLocateFileSystem, nodeTargetFileSystem } from '../../../src/node/hookFileSystem';
import { compileGrants, decideWrite } from '../../../src/planner/enforce/writeDecision';
import type { ManifestState } from '../../../src/planner/enforce/writeDecision';
import { runWriteGate } from '../../../src/planner/enforce/writeGate';
import { ANY_READING, locateDestinations, resolveWriteDestinations } from '../../../src/planner/enforce/writeTarget';

const SPELLINGS = 100_000;
const GATE_SPELLINGS = 10_000;

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

/** Opens `absolute` for append as the kernel does and says where the data landed and which entry a rename would replace; undefined when the kernel refuses. */
function kernelDestinations(absolute: string): { landing: string; entry: string; created: boolean } | undefined {
  const existed = existsSync(absolute);
  let descriptor: number;
  try {
    descriptor = openSync(absolute, 'a');
  } catch {
    return undefined; // The kernel refuses the write (missing parent, a directory): nothing can leak.
  }
  closeSync(descriptor);
  // realpath(3) itself: Node's JS realpathSync folds `..` lexically before following links, the kernel does not.
  const landing = realpathSync.native(absolute);
  const entry = join(realpathSync.native(dirname(absolute)), basename(absolute));
  return { landing, entry, created: !existed };
}

describe('write gate fuzz: no out-of-scope spelling is ever allowed', function () {
  this.timeout(300_000);
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
    symlinkSync('../out/b.ts', join(root, 'in/file-out'));
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  /** The scope, brute force: everything under `in/`, plus the one file `café.md` (NFC below the root, byte-exact above it). */
  function oracleInScope(destination: string, repo: string): boolean {
    if (!destination.startsWith(`${repo}/`)) return false;
    const relative = destination.slice(repo.length + 1).normalize('NFC');
    return relative.startsWith('in/') || relative === 'caf\u00e9.md';
  }

  const pieces = ['in', 'out', 'sub', 'to-out', 'to-sub', 'to-in', 'abs-out', 'dangling-out', 'dangling-in', 'up2', 'file-out', '..', '.', '', 'IN', 'In', 'inside-not', 'a.ts', 'b.ts', 'new.ts', 'caf\u00e9.md', 'cafe\u0301.md', 'x'];

  function spelling(next: () => number, repo: string, parts: readonly string[]): string {
    const count = 1 + Math.floor(next() * 6);
    const chosen: string[] = [];
    // Half the spellings start in the scope, so both sides of the boundary are well populated.
    if (next() < 0.5) chosen.push('in');
    for (let index = 0; index < count; index += 1) chosen.push(parts[Math.floor(next() * parts.length)] ?? 'x');
    let path = chosen.join('/');
    const roll = next();
    if (roll < 0.3) path = `${repo}/${path}`;
    else if (roll < 0.4) path = `./${path}`;
    else if (roll < 0.45) path = `${repo}//${path}`;
    if (next() < 0.05) path = `${path}/.`;
    if (next() < 0.03) path = path.replace('/', '\\');
    if (next() < 0.01) path = `${path}\0`;
    return path;
  }

  it(`checks ${SPELLINGS.toLocaleString('en')} spellings; every allowed one lands in scope, and so does the entry it replaces`, () => {
    const manifest: ManifestState = {
      kind: 'loaded',
      path: join(root, '.claude/wave-scope.json'),
      manifest: { wave: 1, role: 'implementation', enforcement: 'strict', allowedPaths: ['in/', 'caf\u00e9.md'], blockedCommands: [] } as never,
      session: 'own',
    };
    // Two spellings of one scope: plain entries and globs (both decided by the scope engine).
    const grantSets = [compileGrants(['in/', 'caf\u00e9.md'], { writeRoot: root }), compileGrants(['in/**', '{caf\u00e9.md,none.md}'], { writeRoot: root })];
    const next = random(20261130);
    let allowed = 0;
    let written = 0;
    const started = Date.now();
    for (let index = 0; index < SPELLINGS; index += 1) {
      const raw = spelling(next, root, pieces);
      const targets = locateDestinations(resolveWriteDestinations(raw, { cwd: root, readings: ANY_READING, fs: nodeTargetFileSystem }), root);
      const decision = decideWrite({ targets, manifest, dispatchedAgent: false, controlPaths: [], writeRoot: root }, grantSets[index % 2]);
      if (decision.decision !== 'allow') continue;
      allowed += 1;
      const found = kernelDestinations(raw.startsWith('/') ? raw : `${root}/${raw}`);
      if (found === undefined) continue;
      if (found.created) {
        unlinkSync(found.landing);
        written += 1;
      }
      assert.ok(oracleInScope(found.landing, root), `seed 20261130, spelling #${index} ${JSON.stringify(raw)} was allowed but writes ${found.landing}`);
      assert.ok(oracleInScope(found.entry, root), `seed 20261130, spelling #${index} ${JSON.stringify(raw)} was allowed but a rename-writer replaces ${found.entry}`);
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
      manifest: { wave: 1, role: 'implementation', enforcement: 'strict', allowedPaths: ['in/'], blockedCommands: [] } as never,
      session: 'own',
    };
    for (const raw of ['in/to-out/b.ts', 'in/abs-out/x', 'in/dangling-out', 'in/sub/up2/out/b.ts', 'IN/a.ts', 'in/../out/b.ts', 'out/to-in/../b.ts', 'in/file-out']) {
      const targets = locateDestinations(resolveWriteDestinations(raw, { cwd: root, readings: ANY_READING, fs: nodeTargetFileSystem }), root);
      const decision = decideWrite({ targets, manifest, dispatchedAgent: false, controlPaths: [], writeRoot: root });
      assert.equal(decision.decision, 'deny', raw);
    }
  });

  describe('the whole gate, as a dispatched agent, around nested repositories, symlinked control state and Unicode roots', () => {
    let checkout: string;
    before(() => {
      // The checkout's name has an accented letter (NFC on disk); spellings use NFC, NFD and a Kelvin-sign variant of it.
      checkout = join(base, 'caf\u00e9K');
      for (const dir of ['.git', 'in/sub', 'in/nested/.git', 'in/nested/.codex', 'out', '.claude']) mkdirSync(join(checkout, dir), { recursive: true });
      writeFileSync(join(checkout, 'in/a.ts'), 'a');
      writeFileSync(join(checkout, 'out/b.ts'), 'b');
      // The manifest allows in/ only; `state` is another way to the state directory (the gate reads the
      // manifest only through real directories, so the state directory itself is real).
      writeFileSync(join(checkout, '.claude/wave-scope.json'), JSON.stringify({ version: 1, wave: 1, role: 'implementation', enforcement: 'strict', allowedPaths: ['in/'], blockedCommands: [] }));
      symlinkSync('.claude', join(checkout, 'state'));
      // A nested repository with a wave of its own that allows everything: it can only add restrictions.
      writeFileSync(join(checkout, 'in/nested/.codex/wave-scope.json'), JSON.stringify({ version: 1, wave: 1, role: 'implementation', enforcement: 'off', allowedPaths: ['src/'], blockedCommands: [] }));
      symlinkSync('../.git', join(checkout, 'in/to-git'));
      symlinkSync('../.claude', join(checkout, 'in/to-claude'));
      symlinkSync('../out', join(checkout, 'in/to-out'));
      symlinkSync('../state/wave-scope.json', join(checkout, 'in/to-manifest'));
    });

    it(`checks ${GATE_SPELLINGS.toLocaleString('en')} spellings: every allowed write lands in scope, outside control state`, () => {
      const nfd = checkout.normalize('NFD');
      const kelvin = checkout.replace('K', '\u212A');
      const parts = ['in', 'out', 'sub', 'nested', '.git', '.codex', '.claude', 'wave-scope.json', 'HEAD', 'config', 'to-git', 'to-claude', 'to-out', 'to-manifest', '..', '.', 'a.ts', 'b.ts', 'new.ts', 'x', 'state', 'settings.json'];
      const host = {
        targetFs: nodeTargetFileSystem,
        locateFs: nodeLocateFileSystem,
        canonicalDirectory: (path: string) => realpathSync.native(path),
        env: { CLAUDE_PROJECT_DIR: checkout, PATH: process.env.PATH },
        processCwd: checkout,
        platform: 'posix' as const,
        homeDir: join(base, 'home'),
        folding: { case: false, unicode: false },
      };
      // Brute force: a `.git` anywhere, or one of the state-dir control files under a state directory at any depth.
      const stateFiles = ['wave-scope.json', 'filescopes', 'wave-scope-hook.cjs', 'wave-scope-session.json', 'settings.json', 'settings.local.json', 'hooks.json', 'config.toml'];
      const control = (relative: string) =>
        relative.split('/').some((segment, index, all) => segment === '.git' || (['.claude', '.codex', '.cursor', '.pi', 'state'].includes(segment) && stateFiles.includes(all[index + 1] ?? '')));
      const next = random(20261201);
      let allowed = 0;
      let landed = 0;
      for (let index = 0; index < GATE_SPELLINGS; index += 1) {
        const roots = [checkout, checkout, nfd, kelvin];
        const raw = spelling(next, roots[Math.floor(next() * roots.length)] as string, parts);
        const request = { protocol: 'claude' as const, toolName: 'Write', writes: true, targets: [raw], readings: ANY_READING, cwd: checkout, agentId: 'a1', sessionIds: ['s'], workspaceRoots: [] };
        const result = runWriteGate(request, host);
        if (result.decision.decision !== 'allow') continue;
        allowed += 1;
        const found = kernelDestinations(raw.startsWith('/') ? raw : `${checkout}/${raw}`);
        if (found === undefined) continue;
        landed += 1;
        if (found.created) unlinkSync(found.landing);
        for (const path of [found.landing, found.entry]) {
          assert.ok(oracleInScope(path, checkout), `seed 20261201, #${index} ${JSON.stringify(raw)} was allowed but reaches ${path}`);
          assert.ok(!control(path.slice(checkout.length + 1)), `seed 20261201, #${index} ${JSON.stringify(raw)} was allowed but writes control state ${path}`);
        }
      }
      assert.ok(allowed > GATE_SPELLINGS / 50, `only ${allowed} of ${GATE_SPELLINGS} spellings were allowed`);
      assert.ok(landed > 100, `only ${landed} allowed spellings reached the disk`);
      console.log(`      gate fuzz: ${GATE_SPELLINGS} spellings, ${allowed} allowed, ${landed} opened by the kernel`);
    });
  });
});
