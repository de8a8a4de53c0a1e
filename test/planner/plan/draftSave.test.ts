// The whole-draft save the planner and the CLI share, on real directories with the Node file system:
// nothing is written unless every wave is disjoint, the active wave gets the manifest, the other waves
// are materialized, deleted waves lose their files, and every outcome is data.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { nodeDeclarationFs } from '../../../src/node/declarationFs';
import type { DraftPlan, SaveDraftOptions } from '../../../src/planner/plan/draftSave';
import { saveDraft, validateDraft } from '../../../src/planner/plan/draftSave';
import { materializeWave } from '../../../src/planner/plan/declarationStore';

const FILES = ['README.md', 'docs/guide.md', 'docs/api.md', 'src/api/server.ts', 'src/ui/App.tsx', 'src/ui/App.test.tsx'];

function tree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => name.split('\\').join('/'))
    .sort();
}

describe('validateDraft', () => {
  const cases: [string, DraftPlan, { ok: boolean; collisions: string[]; duplicates: string[]; contested: string[] }][] = [
    [
      'disjoint agents',
      { waves: [{ wave: 1, role: 'builder', agents: [{ id: 'a', entries: ['docs/'] }, { id: 'b', entries: ['src/'] }] }] },
      { ok: true, collisions: [], duplicates: [], contested: [] },
    ],
    [
      'a glob against a folder, with the files both own',
      { waves: [{ wave: 1, role: 'builder', agents: [{ id: 'a', entries: ['**/*.md'] }, { id: 'b', entries: ['docs/'] }] }] },
      { ok: false, collisions: ['a+b'], duplicates: [], contested: ['docs/api.md', 'docs/guide.md'] },
    ],
    [
      'a glob that matches no file today still collides (no contested file)',
      { waves: [{ wave: 1, role: 'builder', agents: [{ id: 'a', entries: ['src/**/*.stories.tsx'] }, { id: 'b', entries: ['src/ui/'] }] }] },
      { ok: false, collisions: ['a+b'], duplicates: [], contested: [] },
    ],
    [
      'the same id twice',
      { waves: [{ wave: 1, role: 'builder', agents: [{ id: 'a', entries: ['docs/'] }, { id: 'a', entries: ['src/'] }] }] },
      { ok: false, collisions: [], duplicates: ['a'], contested: [] },
    ],
  ];
  for (const [name, draft, expected] of cases) {
    it(name, () => {
      const validation = validateDraft(draft, FILES, false);
      const wave = validation.waves[0];
      assert.equal(validation.ok, expected.ok);
      assert.deepEqual(wave?.collisions.map((collision) => [...collision.agents].sort().join('+')), expected.collisions);
      assert.deepEqual(wave?.duplicateIds, expected.duplicates);
      assert.deepEqual(wave?.contested, expected.contested);
    });
  }

  it('checks each wave on its own: the same file in two waves is no collision', () => {
    const validation = validateDraft(
      {
        waves: [
          { wave: 1, role: 'builder', agents: [{ id: 'a', entries: ['README.md'] }] },
          { wave: 2, role: 'builder', agents: [{ id: 'b', entries: ['README.md'] }] },
        ],
      },
      FILES,
      false,
    );
    assert.equal(validation.ok, true);
    assert.deepEqual(validation.waves.map((wave) => wave.wave), [1, 2]);
  });

  it('folds case when the repository does', () => {
    const draft: DraftPlan = { waves: [{ wave: 1, role: 'builder', agents: [{ id: 'a', entries: ['readme.md'] }, { id: 'b', entries: ['README.md'] }] }] };
    assert.equal(validateDraft(draft, FILES, false).ok, true);
    assert.equal(validateDraft(draft, FILES, true).ok, false);
  });
});

describe('saveDraft (real directories, the Node file system)', () => {
  let root: string;
  const fsRoots: string[] = [];
  const options = (overrides: Partial<SaveDraftOptions> = {}): SaveDraftOptions => ({
    repoRoot: root,
    ignoreCase: false,
    files: FILES,
    stateDirName: '.claude',
    ownIds: new Set(['session-1']),
    fsAt: (at) => {
      fsRoots.push(at);
      return nodeDeclarationFs(at);
    },
    ...overrides,
  });
  const stateFiles = () => tree(join(root, '.claude'));
  const readJson = (path: string) => JSON.parse(readFileSync(join(root, '.claude', path), 'utf8'));

  const twoWaves: DraftPlan = {
    activeWave: 1,
    waves: [
      { wave: 1, role: 'implementation', agents: [{ id: 'api', entries: ['src/api/'] }, { id: 'ui', entries: ['src/ui/App.tsx'] }] },
      { wave: 2, role: 'review', agents: [{ id: 'docs', entries: ['docs/'] }] },
    ],
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'wave-scope-draft-save-'));
    fsRoots.length = 0;
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('writes every wave: the active one with its manifest, the others materialized', () => {
    const result = saveDraft(twoWaves, options());
    assert.equal(result.ok, true, result.message);
    assert.ok(result.ok);
    assert.deepEqual(result.wavesWritten, [1, 2]);
    assert.equal(result.manifestWave, 1);
    assert.equal(result.message, 'Saved 2 waves to .claude; the manifest names wave 1.');
    assert.deepEqual(readJson('filescopes/wave-1/api.json'), ['src/api/']);
    assert.deepEqual(readJson('filescopes/wave-2/docs.json'), ['docs/']);
    const manifest = readJson('wave-scope.json');
    assert.equal(manifest.wave, 1);
    assert.equal(manifest.role, 'implementation');
    assert.equal(manifest.session_id, 'session-1');
    // The test sibling of a granted file is granted with it (the safe chain's union step ran).
    assert.ok(manifest.allowedPaths.includes('src/ui/App.test.tsx'), manifest.allowedPaths.join(', '));
    // Confined to the repository (as plan write is), so a .claude that is a link is refused, not written through.
    assert.ok(fsRoots.length > 0 && fsRoots.every((at) => at === root), `the repository's fs only: ${fsRoots.join(', ')}`);
  });

  it('refuses a draft with a collision in any wave and writes nothing', () => {
    const colliding: DraftPlan = {
      ...twoWaves,
      waves: [twoWaves.waves[0]!, { wave: 2, role: 'review', agents: [{ id: 'docs', entries: ['docs/'] }, { id: 'all', entries: ['**/*.md'] }] }],
    };
    const result = saveDraft(colliding, options());
    assert.equal(result.ok, false);
    assert.ok(!result.ok);
    assert.equal(result.step, 'assert-disjoint');
    assert.match(result.message, /^Not saved: the plan is not disjoint, 1 collision \(wave 2: docs and all both own docs\/(api|guide)\.md\)\. The draft is kept\.$/);
    assert.deepEqual(result.collisions.map((collision) => collision.wave), [2]);
    assert.deepEqual(stateFiles(), []);
    assert.deepEqual(fsRoots, [], 'not even the file system was asked for');
  });

  it('holds the plan-write lock from before it asks for the file system to after its last write, and writes nothing when the lock cannot be had', () => {
    const events: string[] = [];
    const saved = saveDraft(
      twoWaves,
      options({
        fsAt: (at) => (events.push('fs'), nodeDeclarationFs(at)),
        lockPlan: () => (events.push('lock'), { held: true, release: () => events.push('release') }),
      }),
    );
    assert.equal(saved.ok, true, saved.message);
    assert.deepEqual([events[0], events[1], events[events.length - 1]], ['lock', 'fs', 'release']);
    assert.equal(events.filter((event) => event === 'release').length, 1);
    rmSync(join(root, '.claude'), { recursive: true, force: true });
    const refused = saveDraft(twoWaves, options({ lockPlan: () => ({ held: false, problem: 'another writer holds it' }) }));
    assert.ok(!refused.ok);
    assert.equal(refused.step, 'state-dir');
    assert.equal(refused.message, 'Not saved: another writer holds it. The draft is kept.');
    assert.deepEqual(stateFiles(), []);
  });

  it('refuses in a linked worktree whose hooks read the main checkout\'s plan (governedFrom), naming it, and writes nothing', () => {
    const result = saveDraft(twoWaves, options({ governedFrom: '/main/checkout' }));
    assert.ok(!result.ok);
    assert.equal(result.step, 'state-dir');
    assert.match(result.message, /^Not saved: this folder is a linked worktree of \/main\/checkout, and the hooks of every checkout of this repository read the plan of \/main\/checkout/);
    assert.deepEqual(stateFiles(), []);
  });

  it('refuses an id named twice, saying so', () => {
    const result = saveDraft({ waves: [{ wave: 3, role: 'builder', agents: [{ id: 'a', entries: ['docs/'] }, { id: 'a', entries: ['src/'] }] }] }, options());
    assert.ok(!result.ok);
    assert.match(result.message, /wave 3 names "a" twice/);
    assert.deepEqual(stateFiles(), []);
  });

  const badActiveWaves: [string, number, RegExp][] = [
    ['a wave the draft does not have', 3, /^Not saved: the draft makes wave 3 active but has no wave 3 \(waves: 1, 2\)\. Nothing was written; the draft is kept\.$/],
    ['a fraction', 1.5, /^Not saved: the active wave must be a positive integer, got 1\.5\. /],
    ['zero', 0, /^Not saved: the active wave must be a positive integer, got 0\. /],
  ];
  for (const [name, activeWave, message] of badActiveWaves) {
    it(`refuses an active wave that is ${name}, and writes nothing`, () => {
      const result = saveDraft({ ...twoWaves, activeWave }, options());
      assert.ok(!result.ok);
      assert.equal(result.step, 'validate');
      assert.match(result.message, message);
      assert.deepEqual(stateFiles(), []);
    });
  }

  it('without an active wave, materializes the waves and leaves the manifest alone', () => {
    const result = saveDraft({ ...twoWaves, activeWave: undefined }, options());
    assert.ok(result.ok, result.message);
    assert.match(result.message, /no active wave, so the manifest was not touched/);
    assert.equal(existsSync(join(root, '.claude', 'wave-scope.json')), false);
    assert.ok(stateFiles().includes('filescopes/wave-1.scopes.json'));
  });

  // Found by red-team review, 2026-12-06: the planner said "nothing enforces it once saved", and the
  // manifest went on enforcing the wave (a deleted one's paths too).
  it('makes no wave active when the draft made the active wave inactive or deleted it: the manifest it was made from goes', () => {
    const base: DraftPlan = { ...twoWaves, manifest: { wave: 1, role: 'implementation' } };
    assert.ok(saveDraft(twoWaves, options()).ok);
    const inactive = saveDraft({ ...twoWaves, activeWave: undefined }, options({ base }));
    assert.ok(inactive.ok, inactive.message);
    assert.match(inactive.message, /no wave is active now: the manifest naming wave 1 was removed/);
    assert.equal(existsSync(join(root, '.claude', 'wave-scope.json')), false);
    assert.ok(stateFiles().includes('filescopes/wave-1/api.json'), 'the wave itself stays, inactive');

    assert.ok(saveDraft(twoWaves, options()).ok);
    const deleted = saveDraft({ activeWave: undefined, waves: [twoWaves.waves[1]!] }, options({ base }));
    assert.ok(deleted.ok, deleted.message);
    assert.equal(existsSync(join(root, '.claude', 'wave-scope.json')), false, 'no manifest grants a deleted wave');
    assert.equal(stateFiles().includes('filescopes/wave-1/api.json'), false);
  });

  it('leaves a manifest written since the draft was made, saying it stays active', () => {
    assert.ok(saveDraft(twoWaves, options()).ok);
    // Since the draft (made with wave 1 active), wave 2 was made active elsewhere.
    assert.ok(saveDraft({ ...twoWaves, activeWave: 2 }, options()).ok);
    const result = saveDraft({ ...twoWaves, activeWave: undefined }, options({ base: { ...twoWaves, manifest: { wave: 1, role: 'implementation' } } }));
    assert.ok(result.ok, result.message);
    assert.match(result.message, /the manifest on disk still names wave 2, written since the draft was made, which stays active/);
    assert.equal(readJson('wave-scope.json').wave, 2);
  });

  it('removes the declaration files of waves the draft no longer has, and nothing else', () => {
    assert.ok(saveDraft(twoWaves, options()).ok);
    writeFileSync(join(root, '.claude', 'notes.txt'), 'mine');
    const result = saveDraft({ ...twoWaves, waves: [twoWaves.waves[0]!] }, options());
    assert.ok(result.ok, result.message);
    assert.match(result.message, /; removed wave 2\.$/);
    const files = stateFiles();
    assert.equal(files.includes('filescopes/wave-2.scopes.json'), false);
    assert.equal(files.includes('filescopes/wave-2/docs.json'), false);
    assert.ok(files.includes('filescopes/wave-1/api.json'));
    assert.ok(files.includes('notes.txt'), 'a file that is not a declaration stays');
  });

  it('with a base, removes only the waves deleted from it: a wave written on disk since the draft was made stays', () => {
    assert.ok(saveDraft(twoWaves, options()).ok);
    // The draft was made from waves 1 and 2; meanwhile the CLI (or a sync, or another window) writes wave 3.
    const base = twoWaves;
    const wave3: DraftPlan = { waves: [{ wave: 3, role: 'builder', agents: [{ id: 'late', entries: ['README.md'] }] }] };
    assert.ok(saveDraft(wave3, options({ base: { activeWave: 1, waves: [] } })).ok);
    assert.ok(stateFiles().includes('filescopes/wave-3/late.json'));
    // The person deleted wave 2 in the planner and saves.
    const result = saveDraft({ ...twoWaves, waves: [twoWaves.waves[0]!] }, options({ base }));
    assert.ok(result.ok, result.message);
    const files = stateFiles();
    assert.equal(files.includes('filescopes/wave-2/docs.json'), false, 'the wave deleted in the draft goes');
    assert.ok(files.includes('filescopes/wave-3/late.json'), 'the wave written since the base stays');
    assert.ok(files.includes('filescopes/wave-3.scopes.json'));
    assert.match(result.message, /; removed wave 2; kept wave 3, written since the draft was made\.$/);
  });

  describe('a wave changed on disk after the draft was made', () => {
    // Another writer (`wave-scope plan write --wave N`, a sync, another window's save) rewrites one wave's
    // declarations, as the CLI does: both shapes through the one writer.
    const writeElsewhere = (wave: number, records: { id: string; files: string[] }[]) => {
      const stateDir = join(root, '.claude');
      const result = materializeWave({ stateDir, wave, records, repoRoot: root, ignoreCase: false }, nodeDeclarationFs(stateDir));
      assert.ok(result.ok);
    };
    // Every file of the state directory with its text: "nothing was written" is this, unchanged.
    const snapshot = () => stateFiles().filter((path) => path.endsWith('.json')).map((path) => [path, readFileSync(join(root, '.claude', path), 'utf8')]);
    // The person's draft: made from twoWaves, with wave 1's ui given the README too.
    const edited: DraftPlan = {
      ...twoWaves,
      waves: [
        { wave: 1, role: 'implementation', agents: [{ id: 'api', entries: ['src/api/'] }, { id: 'ui', entries: ['src/ui/App.tsx', 'README.md'] }] },
        twoWaves.waves[1]!,
      ],
    };

    beforeEach(() => assert.ok(saveDraft(twoWaves, options()).ok));

    it('refuses to write over it: nothing is written, and the refusal names the wave and what changed', () => {
      writeElsewhere(2, [
        { id: 'docs', files: ['docs/guide.md'] },
        { id: 'late', files: ['README.md'] },
      ]);
      const before = snapshot();
      const result = saveDraft(edited, options({ base: twoWaves }));
      assert.ok(!result.ok, result.message);
      assert.equal(result.step, 'stale');
      assert.deepEqual(snapshot(), before, 'not one declaration, not the manifest');
      assert.deepEqual(
        result.staleWaves?.map(({ wave, action, changes }) => ({ wave, action, changes })),
        [{ wave: 2, action: 'write', changes: ['agent docs now owns docs/guide.md and no longer owns docs/', 'agent late was added (README.md)'] }],
      );
      assert.deepEqual(result.staleWaves?.[0]?.onDisk, [
        { id: 'docs', entries: ['docs/guide.md'] },
        { id: 'late', entries: ['README.md'] },
      ]);
      assert.equal(
        result.message,
        'Not saved: the plan on disk changed after this draft was made, and saving would undo that. ' +
          'Wave 2 (the draft would write over it): agent docs now owns docs/guide.md and no longer owns docs/; agent late was added (README.md). ' +
          'Load the plan from disk, or overwrite these changes on purpose. Nothing was written; the draft is kept.',
      );
    });

    it('writes over it when the person chose to overwrite exactly the version on disk', () => {
      writeElsewhere(2, [{ id: 'docs', files: ['docs/guide.md'] }]);
      const refused = saveDraft(edited, options({ base: twoWaves }));
      assert.ok(!refused.ok && refused.staleWaves);
      const overwrite = refused.staleWaves.map(({ wave, onDisk }) => ({ wave, agents: onDisk }));
      const result = saveDraft(edited, options({ base: twoWaves, overwrite }));
      assert.ok(result.ok, result.message);
      assert.deepEqual(readJson('filescopes/wave-2/docs.json'), ['docs/'], "the draft's version of wave 2");
      assert.deepEqual(readJson('filescopes/wave-1/ui.json'), ['src/ui/App.tsx', 'README.md']);
    });

    it('refuses again when the wave changed once more after the person chose to overwrite it', () => {
      writeElsewhere(2, [{ id: 'docs', files: ['docs/guide.md'] }]);
      const refused = saveDraft(edited, options({ base: twoWaves }));
      assert.ok(!refused.ok && refused.staleWaves);
      const overwrite = refused.staleWaves.map(({ wave, onDisk }) => ({ wave, agents: onDisk }));
      writeElsewhere(2, [{ id: 'docs', files: ['docs/api.md'] }]);
      const result = saveDraft(edited, options({ base: twoWaves, overwrite }));
      assert.ok(!result.ok);
      assert.equal(result.step, 'stale');
      assert.deepEqual(result.staleWaves?.[0]?.changes, ['agent docs now owns docs/api.md and no longer owns docs/']);
      assert.deepEqual(readJson('filescopes/wave-2/docs.json'), ['docs/api.md']);
    });

    it('refuses to remove a wave the draft deleted when it changed on disk since', () => {
      writeElsewhere(2, [{ id: 'docs', files: ['docs/', 'README.md'] }]);
      const result = saveDraft({ ...twoWaves, waves: [twoWaves.waves[0]!] }, options({ base: twoWaves }));
      assert.ok(!result.ok);
      assert.deepEqual(
        result.staleWaves?.map(({ wave, action, changes }) => ({ wave, action, changes })),
        [{ wave: 2, action: 'remove', changes: ['agent docs now owns README.md'] }],
      );
      assert.match(result.message, /Wave 2 \(the draft deletes it\): agent docs now owns README\.md\./);
      assert.deepEqual(readJson('filescopes/wave-2/docs.json'), ['docs/', 'README.md']);
    });

    it('refuses to write over a wave the draft adds when the same wave was written on disk since', () => {
      writeElsewhere(3, [{ id: 'late', files: ['README.md'] }]);
      const withWave3: DraftPlan = { ...twoWaves, waves: [...twoWaves.waves, { wave: 3, role: 'builder', agents: [{ id: 'mine', entries: ['docs/api.md'] }] }] };
      const result = saveDraft(withWave3, options({ base: twoWaves }));
      assert.ok(!result.ok);
      assert.deepEqual(result.staleWaves?.[0]?.changes, ['it was written on disk', 'agent late was added (README.md)']);
      assert.deepEqual(readJson('filescopes/wave-3/late.json'), ['README.md']);
      assert.equal(existsSync(join(root, '.claude', 'filescopes', 'wave-3', 'mine.json')), false);
    });

    it('compares agents and entries, not formatting: a wave rewritten with the same entries is written as before', () => {
      // Wave 2 rewritten by hand: other spacing, the entry spelled without its slash; wave 1 unchanged.
      writeFileSync(join(root, '.claude', 'filescopes', 'wave-2.scopes.json'), '[ {"files": ["./docs"], "id": "docs"} ]\n');
      writeFileSync(join(root, '.claude', 'filescopes', 'wave-2', 'docs.json'), '["./docs"]');
      const result = saveDraft(edited, options({ base: twoWaves }));
      assert.ok(result.ok, result.message);
      assert.deepEqual(readJson('filescopes/wave-1/ui.json'), ['src/ui/App.tsx', 'README.md']);
      assert.deepEqual(readJson('filescopes/wave-2/docs.json'), ['docs/']);
    });

    describe('the active wave, with a base that does not record the manifest (kept by an older version)', () => {
      // `wave-scope plan write --wave 3` after the draft was made: wave 3 declared, and the manifest names it.
      const activateWave3 = () => {
        const wave3: DraftPlan = { activeWave: 3, waves: [{ wave: 3, role: 'builder', agents: [{ id: 'late', entries: ['README.md'] }] }] };
        assert.ok(saveDraft(wave3, options({ base: { activeWave: 1, waves: [] } })).ok);
      };

      it('refuses to switch the manifest back from a wave made active on disk since: nothing is written', () => {
        activateWave3();
        const before = snapshot();
        const result = saveDraft(edited, options({ base: twoWaves }));
        assert.ok(!result.ok, result.message);
        assert.equal(result.step, 'stale');
        assert.deepEqual(result.staleWaves, []);
        assert.deepEqual(result.staleManifest, {
          onDisk: { wave: 3, role: 'builder' },
          base: undefined,
          draft: { wave: 1, role: 'implementation' },
          change: 'the manifest now names wave 3 (it named wave 1 when the draft was made); saving would make wave 1 active',
        });
        assert.equal(
          result.message,
          'Not saved: the plan on disk changed after this draft was made, and saving would undo that. ' +
            'The manifest now names wave 3 (it named wave 1 when the draft was made); saving would make wave 1 active. ' +
            'Load the plan from disk, or overwrite these changes on purpose. Nothing was written; the draft is kept.',
        );
        assert.deepEqual(snapshot(), before, 'not one declaration, not the manifest');
        assert.equal(readJson('wave-scope.json').wave, 3);
      });

      it('switches it when the person chose to overwrite exactly the wave the manifest names', () => {
        activateWave3();
        const result = saveDraft(edited, options({ base: twoWaves, overwriteManifest: { wave: 3, role: 'builder' } }));
        assert.ok(result.ok, result.message);
        assert.equal(readJson('wave-scope.json').wave, 1);
      });

      it('refuses again when the manifest names yet another wave than the one the person chose to overwrite', () => {
        activateWave3();
        const result = saveDraft(edited, options({ base: twoWaves, overwriteManifest: { wave: 2, role: 'builder' } }));
        assert.ok(!result.ok);
        assert.deepEqual(result.staleManifest?.onDisk, { wave: 3, role: 'builder' });
      });

      it('compares only the wave: a manifest removed since is written again, as before', () => {
        rmSync(join(root, '.claude', 'wave-scope.json'));
        const result = saveDraft(edited, options({ base: twoWaves }));
        assert.ok(result.ok, result.message);
        assert.equal(readJson('wave-scope.json').wave, 1);
      });

      it('compares nothing when the draft leaves the manifest alone, or names the wave on disk', () => {
        activateWave3();
        const untouched = saveDraft({ ...edited, activeWave: undefined }, options({ base: twoWaves }));
        assert.ok(untouched.ok, untouched.message);
        assert.equal(readJson('wave-scope.json').wave, 3);
        const wave3 = { wave: 3, role: 'builder', agents: [{ id: 'late', entries: ['README.md'] }] };
        const naming3: DraftPlan = { activeWave: 3, waves: [...edited.waves, wave3] };
        const named = saveDraft(naming3, options({ base: { activeWave: 1, waves: naming3.waves } }));
        assert.ok(named.ok, named.message);
        assert.equal(readJson('wave-scope.json').wave, 3);
      });
    });

    describe('the manifest, with a base that records it', () => {
      // The plan the draft was made from, as the planner reads it: the manifest on disk named wave 1 with its role.
      const base: DraftPlan = { ...twoWaves, manifest: { wave: 1, role: 'implementation' } };
      const manifestFile = () => join(root, '.claude', 'wave-scope.json');
      // Another writer saves wave 1 again with another role (as `wave-scope plan write --role` or another window would).
      const giveWave1Role = (role: string) => {
        const wave1 = { ...twoWaves.waves[0]!, role };
        assert.ok(saveDraft({ activeWave: 1, waves: [wave1] }, options({ base: { activeWave: 1, waves: [wave1] } })).ok);
      };

      it('refuses to write again a manifest removed from disk since: nothing is written, and the refusal says so', () => {
        rmSync(manifestFile());
        const before = snapshot();
        const result = saveDraft(edited, options({ base }));
        assert.ok(!result.ok, result.message);
        assert.equal(result.step, 'stale');
        assert.deepEqual(result.staleWaves, []);
        const change =
          'the manifest was removed from disk (it named wave 1 with the role implementation when the draft was made), so no wave is active; ' +
          'saving would write it again, to make wave 1 active with the role implementation';
        assert.deepEqual(result.staleManifest, { onDisk: null, base: { wave: 1, role: 'implementation' }, draft: { wave: 1, role: 'implementation' }, change });
        assert.equal(
          result.message,
          'Not saved: the plan on disk changed after this draft was made, and saving would undo that. ' +
            'The manifest was removed from disk (it named wave 1 with the role implementation when the draft was made), so no wave is active; ' +
            'saving would write it again, to make wave 1 active with the role implementation. ' +
            'Load the plan from disk, or overwrite these changes on purpose. Nothing was written; the draft is kept.',
        );
        assert.equal(existsSync(manifestFile()), false, 'no manifest was written');
        assert.deepEqual(snapshot(), before, 'not one declaration');
      });

      it('writes it again when the person chose to overwrite "nothing there"', () => {
        rmSync(manifestFile());
        const result = saveDraft(edited, options({ base, overwriteManifest: null }));
        assert.ok(result.ok, result.message);
        assert.deepEqual([readJson('wave-scope.json').wave, readJson('wave-scope.json').role], [1, 'implementation']);
      });

      it('refuses again when a manifest was written after the person chose to overwrite its removal', () => {
        rmSync(manifestFile());
        giveWave1Role('review');
        const result = saveDraft(edited, options({ base, overwriteManifest: null }));
        assert.ok(!result.ok);
        assert.deepEqual(result.staleManifest?.onDisk, { wave: 1, role: 'review' });
        assert.equal(readJson('wave-scope.json').role, 'review');
      });

      it('refuses to write over a role changed on disk since, naming both roles', () => {
        giveWave1Role('review');
        const before = snapshot();
        const result = saveDraft(edited, options({ base }));
        assert.ok(!result.ok, result.message);
        assert.equal(result.step, 'stale');
        assert.equal(
          result.staleManifest?.change,
          'the manifest now gives wave 1 the role review (it was implementation when the draft was made); saving would give it the role implementation',
        );
        assert.deepEqual(result.staleManifest?.onDisk, { wave: 1, role: 'review' });
        assert.deepEqual(snapshot(), before, 'not one declaration, not the manifest');
      });

      it('writes over the role when the person chose to overwrite exactly that manifest, and refuses again after one more change', () => {
        giveWave1Role('review');
        const overwriteManifest = { wave: 1, role: 'review' };
        giveWave1Role('discovery');
        const again = saveDraft(edited, options({ base, overwriteManifest }));
        assert.ok(!again.ok);
        assert.deepEqual(again.staleManifest?.onDisk, { wave: 1, role: 'discovery' });
        assert.equal(readJson('wave-scope.json').role, 'discovery');
        const result = saveDraft(edited, options({ base, overwriteManifest: { wave: 1, role: 'discovery' } }));
        assert.ok(result.ok, result.message);
        assert.equal(readJson('wave-scope.json').role, 'implementation');
      });

      it('names the wave and the role when both changed', () => {
        const wave3: DraftPlan = { activeWave: 3, waves: [{ wave: 3, role: 'review', agents: [{ id: 'late', entries: ['README.md'] }] }] };
        assert.ok(saveDraft(wave3, options({ base: { activeWave: 1, waves: [] } })).ok);
        const result = saveDraft(edited, options({ base }));
        assert.ok(!result.ok);
        assert.equal(
          result.staleManifest?.change,
          'the manifest now names wave 3 with the role review (it named wave 1 with the role implementation when the draft was made); ' +
            'saving would make wave 1 active with the role implementation',
        );
      });

      it('is not refused for a role changed on disk when the draft takes that role', () => {
        giveWave1Role('review');
        const takesRole: DraftPlan = { ...edited, waves: [{ ...edited.waves[0]!, role: 'review' }, edited.waves[1]!] };
        const result = saveDraft(takesRole, options({ base }));
        assert.ok(result.ok, result.message);
        assert.equal(readJson('wave-scope.json').role, 'review');
      });

      it('is not refused for a role changed on disk when the draft leaves the manifest alone', () => {
        giveWave1Role('review');
        const result = saveDraft({ ...edited, activeWave: undefined }, options({ base }));
        assert.ok(result.ok, result.message);
        assert.equal(readJson('wave-scope.json').role, 'review');
      });

      it('is not refused when the manifest was removed and the draft leaves it alone', () => {
        rmSync(manifestFile());
        const result = saveDraft({ ...edited, activeWave: undefined }, options({ base }));
        assert.ok(result.ok, result.message);
        assert.equal(existsSync(manifestFile()), false);
      });

      it('refuses a manifest written where the base had none when the draft would write another', () => {
        const result = saveDraft({ ...edited, activeWave: 2 }, options({ base: { ...twoWaves, activeWave: undefined, manifest: null } }));
        assert.ok(!result.ok);
        assert.equal(
          result.staleManifest?.change,
          'the manifest now names wave 1 with the role implementation (there was no manifest when the draft was made); saving would make wave 2 active with the role review',
        );
        assert.equal(readJson('wave-scope.json').wave, 1);
      });
    });

    it('without a base (an older kept draft) nothing is compared: the draft is written as before', () => {
      writeElsewhere(2, [{ id: 'docs', files: ['docs/guide.md'] }]);
      const result = saveDraft(edited, options());
      assert.ok(result.ok, result.message);
      assert.deepEqual(readJson('filescopes/wave-2/docs.json'), ['docs/']);
    });
  });

  describe('a base that records no manifest', () => {
    // What the planner reads from an empty state directory: wave 1, empty, named active, with no manifest behind it.
    const emptyBase: DraftPlan = { activeWave: 1, waves: [{ wave: 1, role: 'builder', agents: [] }], manifest: null };

    it('a first save into an empty state directory is not refused, and writes the manifest', () => {
      const draft: DraftPlan = { activeWave: 1, waves: [{ wave: 1, role: 'builder', agents: [{ id: 'docs', entries: ['docs/'] }] }] };
      const result = saveDraft(draft, options({ base: emptyBase }));
      assert.ok(result.ok, result.message);
      assert.equal(readJson('wave-scope.json').wave, 1);
    });

    it('a save that makes a wave active where only declarations were is not refused', () => {
      assert.ok(saveDraft({ ...twoWaves, activeWave: undefined }, options()).ok);
      const result = saveDraft(twoWaves, options({ base: { ...twoWaves, activeWave: undefined, manifest: null } }));
      assert.ok(result.ok, result.message);
      assert.equal(readJson('wave-scope.json').wave, 1);
    });
  });

  it('resolves the state directory as the CLI does when none is named (or the name is not a state directory)', () => {
    for (const stateDirName of [undefined, 'elsewhere']) {
      rmSync(join(root, '.claude'), { recursive: true, force: true });
      const result = saveDraft(twoWaves, options({ stateDirName }));
      assert.ok(result.ok, result.message);
      assert.ok(existsSync(join(root, '.claude', 'wave-scope.json')), `${stateDirName}: default .claude`);
      assert.equal(existsSync(join(root, 'elsewhere')), false);
    }
  });

  it('writes into the named state directory', () => {
    const result = saveDraft(twoWaves, options({ stateDirName: '.cursor' }));
    assert.ok(result.ok, result.message);
    assert.ok(existsSync(join(root, '.cursor', 'wave-scope.json')));
    assert.equal(existsSync(join(root, '.claude')), false);
  });

  // Found by red-team review, 2026-12-06: the save reported success, and the hooks went on enforcing the
  // older plan in the directory they read first.
  it('refuses to save into a named state directory the hooks would not read, naming the one they do', () => {
    assert.ok(saveDraft(twoWaves, options({ stateDirName: '.cursor' })).ok);
    const result = saveDraft(twoWaves, options({ stateDirName: '.claude' }));
    assert.ok(!result.ok);
    assert.equal(result.step, 'state-dir');
    assert.match(result.message, /^Not saved: the hooks read the plan in \.cursor, whose manifest comes before \.claude in the order they look/);
    assert.equal(existsSync(join(root, '.claude')), false, 'nothing written');
    // A directory the hooks read first is saved into, and takes over (its manifest comes first).
    rmSync(join(root, '.cursor'), { recursive: true });
    assert.ok(saveDraft(twoWaves, options({ stateDirName: '.claude' })).ok);
    assert.ok(saveDraft(twoWaves, options({ stateDirName: '.cursor' })).ok);
  });

  // Found by red-team review, 2026-12-06: the planner (no session id of its own) saved over a manifest bound
  // to another session and wrote it unbound, so it bound every session and took over a third one's plan.
  it('with keepBinding and no session of its own, keeps the binding of the manifest it replaces', () => {
    const first = saveDraft(twoWaves, options({ ownIds: new Set(['session-s']) }));
    assert.ok(first.ok && first.manifestBoundTo === 'session-s', 'the outcome names the session the manifest written is bound to');
    assert.equal(readJson('wave-scope.json').session_id, 'session-s');
    const kept = saveDraft(twoWaves, options({ ownIds: new Set(), keepBinding: true }));
    assert.ok(kept.ok && kept.manifestBoundTo === 'session-s');
    assert.equal(readJson('wave-scope.json').session_id, 'session-s', 'still bound to the session it names');
    const unbound = saveDraft(twoWaves, options({ ownIds: new Set() }));
    assert.ok(unbound.ok && !('manifestBoundTo' in unbound));
    assert.equal(readJson('wave-scope.json').session_id, undefined, 'without keepBinding, unbound as before');
  });

  it('refuses a symbolic link planted where any wave of the save goes before its first write, naming it, and writes nothing', () => {
    const outside = mkdtempSync(join(tmpdir(), 'wave-scope-draft-outside-'));
    try {
      // Saved once, then saved again with a link planted in the active wave's directory, which the save
      // writes last: the other wave, the manifest's skeleton and the aggregate's removal would come first.
      assert.ok(saveDraft(twoWaves, options()).ok);
      const waveDir = join(root, '.claude', 'filescopes', 'wave-1');
      rmSync(waveDir, { recursive: true });
      symlinkSync(outside, waveDir, 'dir');
      const before = { files: stateFiles(), manifest: readJson('wave-scope.json'), aggregate: readJson('filescopes/wave-1.scopes.json') };
      const changed: DraftPlan = {
        activeWave: 1,
        waves: [
          { wave: 1, role: 'implementation', agents: [{ id: 'api', entries: ['src/api/'] }, { id: 'ui', entries: ['src/ui/App.tsx', 'README.md'] }] },
          { wave: 2, role: 'review', agents: [{ id: 'docs', entries: ['docs/guide.md'] }] },
        ],
      };
      const result = saveDraft(changed, options());
      assert.ok(!result.ok);
      assert.equal(result.step, 'state-dir');
      assert.equal(
        result.message,
        'Not saved: .claude/filescopes/wave-1 is a symbolic link where the save writes the plan: Wave Scope never writes through such an entry or replaces it. Move it out of the way, then save again. Nothing was written; the draft is kept.',
      );
      assert.deepEqual({ files: stateFiles(), manifest: readJson('wave-scope.json'), aggregate: readJson('filescopes/wave-1.scopes.json') }, before, 'nothing written or removed');
      assert.deepEqual(readJson('filescopes/wave-2/docs.json'), ['docs/'], 'the other wave was not written either');
      assert.deepEqual(tree(outside), [], 'nothing was written through the link');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  // Found by red-team review, 2026-12-06: the save was confined to the state directory, reached through
  // the link, and wrote the plan into the folder the link names (`plan write` refused it).
  it('refuses a .claude that is a symbolic link (a shared folder, another repository), writing nothing through it', () => {
    const outside = mkdtempSync(join(tmpdir(), 'wave-scope-draft-outside-'));
    try {
      symlinkSync(outside, join(root, '.claude'), 'dir');
      const result = saveDraft(twoWaves, options());
      assert.ok(!result.ok);
      assert.equal(result.step, 'state-dir');
      assert.match(result.message, /^Not saved: \.claude is a symbolic link where the save writes the plan/);
      assert.deepEqual(tree(outside), [], 'nothing was written through the link');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('refuses a link planted in a wave it writes before the active one, with nothing written (not "Not saved completely")', () => {
    const outside = mkdtempSync(join(tmpdir(), 'wave-scope-draft-outside-'));
    try {
      mkdirSync(join(root, '.claude', 'filescopes'), { recursive: true });
      symlinkSync(outside, join(root, '.claude', 'filescopes', 'wave-2'), 'dir');
      const result = saveDraft(twoWaves, options());
      assert.ok(!result.ok);
      assert.equal(result.step, 'state-dir');
      assert.match(result.message, /^Not saved: \.claude\/filescopes\/wave-2 is a symbolic link where the save writes the plan: /);
      assert.deepEqual(tree(outside), [], 'nothing was written through the link');
      assert.deepEqual(stateFiles(), ['filescopes', 'filescopes/wave-2'], 'nothing was written beside it');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('still refuses, through the chain\'s own checks, a link its look ahead missed (planted just after it)', () => {
    const outside = mkdtempSync(join(tmpdir(), 'wave-scope-draft-outside-'));
    try {
      mkdirSync(join(root, '.claude', 'filescopes'), { recursive: true });
      symlinkSync(outside, join(root, '.claude', 'filescopes', 'wave-2'), 'dir');
      // A file system whose look ahead misses the link, as when it is planted just after the look.
      const blind = options({ fsAt: (at) => ({ ...nodeDeclarationFs(at), findInTheWay: () => undefined }) });
      const result = saveDraft(twoWaves, blind);
      assert.ok(!result.ok);
      assert.equal(result.step, 'materialize');
      assert.match(result.message, /^Not saved completely: wave 2: .*symbolic link/);
      assert.deepEqual(tree(outside), [], 'nothing was written through the link');
      assert.equal(existsSync(join(root, '.claude', 'wave-scope.json')), false, 'the manifest (the commit point) was not written');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('reports where it wrote relative to the repository', () => {
    const result = saveDraft({ activeWave: 4, waves: [{ wave: 4, role: 'builder', agents: [{ id: 'a', entries: ['README.md'] }] }] }, options());
    assert.ok(result.ok, result.message);
    assert.equal(result.message, `Saved 1 wave to ${relative(root, join(root, '.claude'))}; the manifest names wave 4.`);
  });
});
