// The extension's bridge to the plan on disk, in the real extension host: a saved draft reads back as
// the same waves, with the role of every wave (the manifest holds only the active wave's role; the
// others come from what the planner remembered); and the plan the planner edits from (its base) is read
// from the state directory Save writes.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { readDiskPlan, saveDraftToDisk } from '../../src/extension/planFiles';
import type { PlanDraft } from '../../src/protocol/plannerProtocol';
import { hostFolder, startFromNoPlan, until } from './hostSupport';
import type { HostFolder } from './hostSupport';

describe('plan files: save and read back', () => {
  let repo: string;

  before(() => {
    repo = mkdtempSync(join(tmpdir(), 'wave-scope-planfiles-'));
    execFileSync('git', ['init', '--quiet', repo]);
    writeFileSync(join(repo, 'a.ts'), '');
    writeFileSync(join(repo, 'b.ts'), '');
  });
  after(() => rmSync(repo, { recursive: true, force: true }));

  const draft: PlanDraft = {
    version: 1,
    activeWave: 1,
    waves: [
      { wave: 1, role: 'implementation', agents: [{ id: 'one', color: '#3794ff', entries: ['a.ts'] }] },
      { wave: 2, role: 'review', agents: [{ id: 'two', color: '#e5a000', entries: ['b.ts'] }] },
    ],
  };

  it('keeps every wave and the role of each (the inactive wave’s from what the planner remembered)', () => {
    const saved = saveDraftToDisk(repo, draft, { ignoreCase: false, files: ['a.ts', 'b.ts'], stateDirName: '.claude' });
    assert.equal(saved.ok, true, saved.message);
    const { plan } = readDiskPlan(repo, { colors: { two: '#e5a000' }, roles: { '2': 'review', '1': 'stale' } }, false);
    assert.deepEqual(
      plan.waves.map((wave) => [wave.wave, wave.role, wave.agents.map((agent) => [agent.id, agent.color, agent.entries])]),
      [
        [1, 'implementation', [['one', plan.waves[0]?.agents[0]?.color, ['a.ts']]]],
        [2, 'review', [['two', '#e5a000', ['b.ts']]]],
      ],
    );
    assert.equal(plan.activeWave, 1);
  });

  it('records the manifest it found (wave and role), none (null), or nothing when it is unusable', () => {
    assert.deepEqual(readDiskPlan(repo, { colors: {}, roles: {} }, false).plan.manifest, { wave: 1, role: 'implementation' });
    // A manifest an agent session wrote is bound to it: the planner, which has no session, records whose it is.
    const manifestFile = join(repo, '.claude', 'wave-scope.json');
    const unbound = readFileSync(manifestFile, 'utf8');
    writeFileSync(manifestFile, JSON.stringify({ ...JSON.parse(unbound), session_id: 'sess-agent' }));
    try {
      assert.deepEqual(readDiskPlan(repo, { colors: {}, roles: {} }, false).plan.manifest, { wave: 1, role: 'implementation', boundTo: 'sess-agent' });
    } finally {
      writeFileSync(manifestFile, unbound);
    }
    const empty = mkdtempSync(join(tmpdir(), 'wave-scope-planfiles-empty-'));
    try {
      execFileSync('git', ['init', '--quiet', empty]);
      const { plan } = readDiskPlan(empty, { colors: {}, roles: {} }, false);
      // Wave 1 is named active for the first save, but no manifest is behind it: the base says so.
      assert.equal(plan.activeWave, 1);
      assert.equal(plan.manifest, null);
      mkdirSync(join(empty, '.claude'));
      writeFileSync(join(empty, '.claude', 'wave-scope.json'), '{ not json');
      assert.equal('manifest' in readDiskPlan(empty, { colors: {}, roles: {} }, false, join(empty, '.claude')).plan, false);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('falls back to the default role when nothing was remembered', () => {
    const { plan } = readDiskPlan(repo, { colors: {}, roles: {} }, false);
    assert.equal(plan.waves.find((wave) => wave.wave === 2)?.role, 'builder');
  });

  it('reads the plan as the hooks do: plan files given a second name and widened are a problem, and their text never becomes the draft', () => {
    const linked = mkdtempSync(join(tmpdir(), 'wave-scope-planfiles-linked-'));
    try {
      execFileSync('git', ['init', '--quiet', linked]);
      writeFileSync(join(linked, 'a.ts'), '');
      const saved = saveDraftToDisk(linked, { ...draft, waves: [draft.waves[0] as PlanDraft['waves'][number]] }, { ignoreCase: false, files: ['a.ts'], stateDirName: '.claude' });
      assert.equal(saved.ok, true, saved.message);
      // An agent's second names, inside files it may write, for its scope file and the aggregate, both widened.
      linkSync(join(linked, '.claude/filescopes/wave-1/one.json'), join(linked, 'mine.json'));
      linkSync(join(linked, '.claude/filescopes/wave-1.scopes.json'), join(linked, 'aggregate.json'));
      writeFileSync(join(linked, 'mine.json'), '["**"]\n');
      writeFileSync(join(linked, 'aggregate.json'), '[{"id":"one","files":["**"]}]\n');
      const { plan, problem } = readDiskPlan(linked, { colors: {}, roles: {} }, false);
      assert.equal(plan.waves.some((wave) => wave.agents.some((agent) => agent.entries.includes('**'))), false, JSON.stringify(plan.waves));
      assert.match(problem ?? '', /wave 1: .*has 2 links/);
    } finally {
      rmSync(linked, { recursive: true, force: true });
    }
  });
});

describe('plan files: the planner reads its base where Save writes', () => {
  const stateDirs = ['.claude', '.cursor'];

  it('with waveScope.plan.stateDirectory naming a directory that has no manifest yet, the base comes from it and Save is not refused', async () => {
    const host = await hostFolder();
    const { api, folder } = host;
    await startFromNoPlan(host, stateDirs);
    const plan = await api.plans.get(folder);
    assert.ok(plan.repoRoot);
    const files = await plan.files();
    // A plan in .claude, where the hooks look first when no other directory has a manifest.
    const elsewhere: PlanDraft = { version: 1, activeWave: 1, waves: [{ wave: 1, role: 'builder', agents: [{ id: 'code', color: '#3794ff', entries: ['src/'] }] }] };
    assert.ok(saveDraftToDisk(plan.repoRoot, elsewhere, { ignoreCase: plan.ignoreCase, files, stateDirName: '.claude' }).ok);
    const configuration = vscode.workspace.getConfiguration('waveScope.plan');
    await configuration.update('stateDirectory', '.cursor', vscode.ConfigurationTarget.Global);
    try {
      const base = plan.diskPlan().plan;
      assert.deepEqual(base.waves.map((wave) => wave.agents.map((agent) => agent.id)), [[]], 'the plan of .cursor: nothing yet');
      const draft: PlanDraft = { ...base, waves: [{ wave: 1, role: 'builder', agents: [{ id: 'docs', color: '#3794ff', entries: ['docs/'] }] }] };
      const outcome = await api.planners.save(folder, draft, base);
      assert.ok(outcome.ok, outcome.message);
      assert.ok(existsSync(join(plan.repoRoot, '.cursor', 'filescopes', 'wave-1', 'docs.json')), 'written where the setting says');
    } finally {
      await configuration.update('stateDirectory', undefined, vscode.ConfigurationTarget.Global);
      await startFromNoPlan(host, stateDirs);
    }
  });
});

describe('plan files: the planner follows waveScope.plan.stateDirectory', function () {
  this.timeout(90000);
  const stateDirs = ['.claude', '.cursor'];
  const lanes = (draft: PlanDraft | undefined) => draft?.waves.map((wave) => [wave.wave, wave.agents.map((agent) => [agent.id, agent.entries])]);
  // The plan in .claude, and another one in .cursor that adds an agent docs owning docs/.
  const inClaude: PlanDraft = { version: 1, activeWave: 1, waves: [{ wave: 1, role: 'builder', agents: [{ id: 'code', color: '#3794ff', entries: ['src/'] }] }] };
  const inCursor: PlanDraft = {
    version: 1,
    activeWave: 1,
    waves: [{ wave: 1, role: 'builder', agents: [{ id: 'code', color: '#3794ff', entries: ['src/'] }, { id: 'docs', color: '#e5a000', entries: ['docs/'] }] }],
  };

  /** Both plans on disk, the setting naming .claude, the kept draft `kept`; then the planner open and reporting. */
  async function plannerOnClaude(host: HostFolder, kept: (base: PlanDraft) => { draft: PlanDraft; dirty: boolean }) {
    const { api, folder } = host;
    await startFromNoPlan(host, stateDirs);
    await vscode.workspace.getConfiguration('waveScope.plan').update('stateDirectory', '.claude', vscode.ConfigurationTarget.Global);
    const plan = await api.plans.get(folder);
    assert.ok(plan.repoRoot);
    const files = await plan.files();
    for (const [stateDirName, draft] of [['.claude', inClaude], ['.cursor', inCursor]] as const) {
      const saved = saveDraftToDisk(plan.repoRoot, draft, { ignoreCase: plan.ignoreCase, files, stateDirName });
      assert.ok(saved.ok, saved.message);
    }
    const base = plan.diskPlan().plan;
    assert.deepEqual(lanes(base), lanes(inClaude), 'the setting names .claude');
    await plan.drafts.write({ ...kept(base), updatedAt: Date.now(), base });
    await vscode.commands.executeCommand('waveScope.openPlanner', folder.uri);
    const panel = await until('the planner', () => api.panelFor(folder));
    await until('the planner ready', () => panel.isReady, 45000);
    await until('the first draft report of the planner', () => panel.latestDraft);
    return panel;
  }

  async function restore(host: HostFolder): Promise<void> {
    await vscode.workspace.getConfiguration('waveScope.plan').update('stateDirectory', undefined, vscode.ConfigurationTarget.Global);
    await startFromNoPlan(host, stateDirs);
  }

  it('a planner without unsaved edits shows the plan of the newly named directory, which becomes its base', async () => {
    const host = await hostFolder();
    try {
      const panel = await plannerOnClaude(host, (base) => ({ draft: base, dirty: false }));
      assert.deepEqual(lanes(panel.latestDraft), lanes(inClaude));
      await vscode.workspace.getConfiguration('waveScope.plan').update('stateDirectory', '.cursor', vscode.ConfigurationTarget.Global);
      await until('the plan of .cursor in the planner', () => JSON.stringify(lanes(panel.latestDraft)) === JSON.stringify(lanes(inCursor)));
      await until('the plan of .cursor as the base of the next save', () => JSON.stringify(lanes(panel.latestBase)) === JSON.stringify(lanes(inCursor)));
    } finally {
      await restore(host);
    }
  });

  it('a planner with unsaved edits keeps them and compares them with the plan of the newly named directory', async () => {
    const host = await hostFolder();
    const { folder } = host;
    // Unsaved: an agent docs with nothing yet. Once it owns docs/, the draft is the plan of .cursor.
    const withDocs = (base: PlanDraft): PlanDraft => ({ ...base, waves: base.waves.map((wave) => ({ ...wave, agents: [...wave.agents, { id: 'docs', color: '#e5a000', entries: [] }] })) });
    try {
      const panel = await plannerOnClaude(host, (base) => ({ draft: withDocs(base), dirty: true }));
      const unsaved = lanes(withDocs(inClaude));
      assert.deepEqual(lanes(panel.latestDraft), unsaved);
      await vscode.workspace.getConfiguration('waveScope.plan').update('stateDirectory', '.cursor', vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('waveScope.assignToAgent', vscode.Uri.joinPath(folder.uri, 'docs'), [vscode.Uri.joinPath(folder.uri, 'docs')], { wave: 1, agentId: 'docs' });
      // The draft now holds what .cursor holds: nothing unsaved, so its base is the plan of .cursor.
      await until('the draft to match the plan of .cursor, its base', () => JSON.stringify(lanes(panel.latestBase)) === JSON.stringify(lanes(inCursor)));
      assert.deepEqual(lanes(panel.latestDraft), lanes(inCursor));
      // The unsaved draft had been kept, not replaced by the disk: undo brings it back.
      await vscode.commands.executeCommand('waveScope.undoPlannerEdit', folder.uri);
      await until('the unsaved draft back', () => JSON.stringify(lanes(panel.latestDraft)) === JSON.stringify(unsaved));
    } finally {
      await restore(host);
    }
  });
});
