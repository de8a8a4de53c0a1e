// The plan in the editor, in a real extension host: a plan on disk whose active wave has a collision
// and gives a coordinator file to an agent yields Problems, code actions, hovers, Explorer badges and
// the status bar item (all read through the VS Code API and the extension's own); Narrow resolves the
// collision; declaration files with an invalid entry and a manifest `validate` rejects get problems on
// their text; a change of the dispatch ledger moves a lane from in flight to finished; a folder opened
// through a symbolic link gets its marks under its own URIs. Every test starts from no plan, no ledger
// and no kept draft, and leaves none behind.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { WaveScopeApi } from '../../src/extension/extension';
import type { FolderInsight } from '../../src/extension/planInsights';
import type { PlanDraft, SaveOutcome } from '../../src/protocol/plannerProtocol';
import { hostFolder, startFromNoPlan, until } from './hostSupport';

/** Writes a wave's declaration by hand (per-agent files, then the aggregate), as another tool could. */
function writeWave(root: string, wave: number, agents: Record<string, string[]>): void {
  const dir = join(root, '.claude', 'filescopes', `wave-${wave}`);
  mkdirSync(dir, { recursive: true });
  for (const [id, files] of Object.entries(agents)) writeFileSync(join(dir, `${id}.json`), `${JSON.stringify(files, null, 2)}\n`);
  const records = Object.entries(agents).map(([id, files]) => ({ id, files }));
  writeFileSync(join(root, '.claude', 'filescopes', `wave-${wave}.scopes.json`), `${JSON.stringify(records, null, 2)}\n`);
}

function writeManifest(root: string, wave: number, allowedPaths: string[]): void {
  const manifest = { version: 1, wave, role: 'implementation', enforcement: 'strict', allowedPaths, blockedCommands: [] };
  writeFileSync(join(root, '.claude', 'wave-scope.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

function ours(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((diagnostic) => diagnostic.source === 'Wave Scope');
}

/** The hovers' text, with the markdown escapes of plain text undone. */
function hoverText(hovers: vscode.Hover[]): string {
  return hovers
    .flatMap((hover) => hover.contents)
    .map((content) => (content instanceof vscode.MarkdownString ? content.value : typeof content === 'string' ? content : content.value))
    .join('\n')
    .replace(/&nbsp;/g, ' ')
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>])/g, '$1');
}

describe('the plan in the editor (Problems, code actions, hovers, badges, status bar)', function () {
  this.timeout(90000);
  let api: WaveScopeApi;
  let folder: vscode.WorkspaceFolder;
  const root = () => folder.uri.fsPath;
  const uri = (path: string) => vscode.Uri.joinPath(folder.uri, ...path.split('/'));

  before(async () => {
    ({ api, folder } = await hostFolder());
  });

  /** No plan, no ledger, no kept draft, and the insights and the lanes' activity read again from that. */
  async function startClean(): Promise<void> {
    await startFromNoPlan({ api, folder }, ['.claude', '.orchestrator']);
    await api.insights.refresh(folder);
    await api.insights.refreshActivity(folder);
  }

  beforeEach(startClean);
  after(startClean);

  /** Analyses again until `probe` holds (the watchers also do it; this does not wait on them). */
  async function insightWhere(what: string, probe: (insight: FolderInsight) => boolean): Promise<FolderInsight> {
    const deadline = Date.now() + 30000;
    for (;;) {
      const insight = await api.insights.refresh(folder);
      await api.marks.update();
      if (insight && probe(insight)) return insight;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((wake) => setTimeout(wake, 100));
    }
  }

  /** api owns src/api/ and package.json; ui owns src/ui/ and src/api/server.ts: a collision on server.ts. */
  async function collidingPlan(): Promise<FolderInsight> {
    writeWave(root(), 1, { api: ['src/api/', 'package.json'], ui: ['src/ui/', 'src/api/server.ts'] });
    writeManifest(root(), 1, ['src/api/', 'src/ui/', 'package.json']);
    return insightWhere('the collision of wave 1', (insight) => insight.data.waves.some((wave) => wave.active && wave.collisions.length > 0));
  }

  it('a contested file of the active wave gets a problem naming the wave, both agents, their entries and the witness', async () => {
    await collidingPlan();
    const diagnostics = await until('the problem on server.ts', () => {
      const found = ours(uri('src/api/server.ts'));
      return found.length > 0 ? found : undefined;
    });
    const contested = diagnostics.find((diagnostic) => diagnostic.code === 'contested');
    assert.ok(contested, JSON.stringify(diagnostics.map((item) => item.message)));
    assert.equal(contested.severity, vscode.DiagnosticSeverity.Error);
    for (const part of ['Wave 1', 'api (src/api/)', 'ui (src/api/server.ts)', 'witness src/api/server.ts']) assert.ok(contested.message.includes(part), `${part} in: ${contested.message}`);
    // A file only one agent owns has no problem.
    assert.deepEqual(ours(uri('src/api/routes/orders.ts')), []);
  });

  it('offers Open in Planner and Narrow as code actions, and Narrow resolves the collision on disk', async () => {
    await collidingPlan();
    await until('the problem on server.ts', () => ours(uri('src/api/server.ts')).length > 0);
    const document = await vscode.workspace.openTextDocument(uri('src/api/server.ts'));
    // A request made while the document's language service is still starting can come back canceled: ask again until it answers.
    let actions: vscode.CodeAction[] = [];
    let lastError = '';
    const deadline = Date.now() + 30000;
    while (!actions.some((action) => action.title === 'Open in Planner') && Date.now() < deadline) {
      try {
        actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', document.uri, new vscode.Range(0, 0, 0, 0), 'quickfix');
      } catch (error) {
        lastError = String(error);
      }
      if (!actions.some((action) => action.title === 'Open in Planner')) await new Promise((wake) => setTimeout(wake, 200));
    }
    const titles = actions.map((action) => action.title);
    assert.ok(titles.includes('Open in Planner'), `${titles.join(' | ')}; ${lastError}; last request ${JSON.stringify(api.marks.lastCodeActions)}`);
    const narrow = actions.find((action) => action.title === "Narrow api's src/api/ so ui keeps the shared files");
    assert.ok(narrow?.command, titles.join(' | '));

    // Open in Planner opens the folder's planner.
    const open = actions.find((action) => action.title === 'Open in Planner');
    await vscode.commands.executeCommand(open?.command?.command ?? '', ...(open?.command?.arguments ?? []));
    const panel = await until('the planner', () => api.panelFor(folder));
    await until('the planner ready', () => panel.isReady, 45000);

    const [target] = narrow.command.arguments as [Record<string, unknown>];
    const outcome = (await vscode.commands.executeCommand(narrow.command.command, { ...target, confirm: true })) as { ok: boolean; message: string } | undefined;
    assert.ok(outcome?.ok, outcome?.message);
    const insight = await insightWhere('the narrowed plan', (item) => item.data.waves.some((wave) => wave.active && wave.collisions.length === 0 && wave.agents.length === 2));
    const api1 = insight.data.waves.find((wave) => wave.active)?.agents.find((agent) => agent.id === 'api');
    assert.ok(api1 && !api1.entries.includes('src/api/') && api1.entries.includes('src/api/routes/orders.ts'), JSON.stringify(api1));
    await until('the problem on server.ts to go', () => ours(uri('src/api/server.ts')).every((diagnostic) => diagnostic.code !== 'contested'));
  });

  it('Open Planner from a Narrow refused for changes on disk shows the narrowed draft, unsaved, with the rest of the kept draft', async () => {
    await collidingPlan();
    const plan = await api.plans.get(folder);
    const base = plan.diskPlan().plan;
    // An unsaved draft made from that plan (an agent docs besides), which the Narrow starts from.
    const kept = { ...base, waves: base.waves.map((wave) => ({ ...wave, agents: [...wave.agents, { id: 'docs', color: '#e5a000', entries: ['docs/'] }] })) };
    await plan.drafts.write({ draft: kept, dirty: true, updatedAt: Date.now(), base });
    // Then another writer changes wave 1 on disk.
    writeWave(root(), 1, { api: ['src/api/', 'package.json', 'README.md'], ui: ['src/ui/', 'src/api/server.ts'] });
    const declaration = join(root(), '.claude', 'filescopes', 'wave-1', 'api.json');
    const onDisk = readFileSync(declaration, 'utf8');
    const files = (await plan.files()).filter((file) => file.startsWith('src/api/') && file !== 'src/api/server.ts');
    assert.ok(files.includes('src/api/routes/orders.ts'), files.join(', '));
    const target = { folderUri: folder.uri.toString(), wave: 1, agent: 'api', entry: 'src/api/', other: 'ui', files, confirm: true };
    const outcome = (await vscode.commands.executeCommand('waveScope.narrowEntry', target)) as SaveOutcome | undefined;
    assert.equal(outcome?.ok === false && outcome.step, 'stale', outcome?.message);
    assert.equal(api.panelFor(folder), undefined, 'no planner open');
    // The refusal's primary button (its first) is Open Planner.
    const deadline = Date.now() + 20_000;
    while (api.panelFor(folder) === undefined) {
      assert.ok(Date.now() < deadline, 'the planner opened from the refusal');
      await vscode.commands.executeCommand('notification.acceptPrimaryAction');
      await new Promise((wake) => setTimeout(wake, 100));
    }
    const panel = await until('the planner', () => api.panelFor(folder));
    await until('the planner ready', () => panel.isReady, 45000);
    const lanes = (draft: PlanDraft | undefined) => Object.fromEntries(draft?.waves.find((wave) => wave.wave === 1)?.agents.map((agent) => [agent.id, agent.entries]) ?? []);
    // The planner opens on the kept draft and makes the narrowing on it.
    const shown = await until('the narrowed draft in the planner', () => (lanes(panel.latestDraft).api?.includes('src/api/') === false ? panel.latestDraft : undefined));
    const { api: narrowed, ...others } = lanes(shown);
    assert.deepEqual(others, { ui: ['src/ui/', 'src/api/server.ts'], docs: ['docs/'] }, 'the rest of the kept draft');
    assert.ok(narrowed && !narrowed.includes('src/api/') && narrowed.includes('src/api/routes/orders.ts') && narrowed.includes('package.json'), `narrowed: ${JSON.stringify(narrowed)}`);
    assert.deepEqual(lanes(panel.latestBase), lanes(base), 'the base the narrowed draft was made from');
    assert.equal(readFileSync(declaration, 'utf8'), onDisk, 'nothing was overwritten');
  });

  /** Wave 1's lanes of a draft: agent id → entries. */
  const lanesOf = (draft: PlanDraft | undefined) => Object.fromEntries(draft?.waves.find((wave) => wave.wave === 1)?.agents.map((agent) => [agent.id, agent.entries]) ?? []);

  /** The planner of the folder, open on `kept` (an unsaved draft) when given, ready and reporting its draft. */
  async function openPlannerOn(kept?: { draft: PlanDraft; base: PlanDraft }) {
    const plan = await api.plans.get(folder);
    if (kept) await plan.drafts.write({ ...kept, dirty: true, updatedAt: Date.now() });
    await vscode.commands.executeCommand('waveScope.openPlanner', folder.uri);
    const panel = await until('the planner', () => api.panelFor(folder));
    await until('the planner ready', () => panel.isReady, 45000);
    await until('the first draft report of the planner', () => panel.latestDraft);
    return panel;
  }

  /** The Narrow of api's src/api/ to its files but server.ts (the code action's target). */
  async function narrowApi(): Promise<SaveOutcome | undefined> {
    const plan = await api.plans.get(folder);
    const files = (await plan.files()).filter((file) => file.startsWith('src/api/') && file !== 'src/api/server.ts');
    assert.ok(files.includes('src/api/routes/orders.ts'), files.join(', '));
    const target = { folderUri: folder.uri.toString(), wave: 1, agent: 'api', entry: 'src/api/', other: 'ui', files, confirm: true };
    return (await vscode.commands.executeCommand('waveScope.narrowEntry', target)) as SaveOutcome | undefined;
  }

  /** Answers the refusal's message with its primary button (Open Planner) until `done` holds. */
  async function openPlannerFromRefusal<T>(what: string, done: () => T | undefined | false): Promise<T> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      await vscode.commands.executeCommand('notification.acceptPrimaryAction');
      const settled = await until(what, done, 1000).catch(() => undefined);
      if (settled !== undefined) return settled;
      assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    }
  }

  const narrowedApi = (entries: readonly string[] | undefined) =>
    entries !== undefined && !entries.includes('src/api/') && entries.includes('src/api/routes/orders.ts') && entries.includes('package.json');

  it('a Narrow refused for changes on disk while the planner is open: Open Planner applies the narrowing to the planner’s draft and keeps its unsaved edits', async () => {
    await collidingPlan();
    const plan = await api.plans.get(folder);
    const base = plan.diskPlan().plan;
    // The planner's unsaved draft: an agent docs besides the plan on disk.
    const withDocs = { ...base, waves: base.waves.map((wave) => ({ ...wave, agents: [...wave.agents, { id: 'docs', color: '#e5a000', entries: ['docs/'] }] })) };
    const panel = await openPlannerOn({ draft: withDocs, base });
    assert.deepEqual(lanesOf(panel.latestDraft), lanesOf(withDocs));
    // Then another writer changes wave 1 on disk, and the Narrow from the editor is refused.
    writeWave(root(), 1, { api: ['src/api/', 'package.json', 'README.md'], ui: ['src/ui/', 'src/api/server.ts'] });
    const declaration = join(root(), '.claude', 'filescopes', 'wave-1', 'api.json');
    const onDisk = readFileSync(declaration, 'utf8');
    const outcome = await narrowApi();
    assert.equal(outcome?.ok === false && outcome.step, 'stale', outcome?.message);
    assert.deepEqual(lanesOf(panel.latestDraft), lanesOf(withDocs), 'the planner keeps its draft until the person chooses');
    // Open Planner: the planner's draft gets the narrowing, its own edits stay, its base is the one they were made from.
    const shown = await openPlannerFromRefusal('the narrowing in the planner', () => (narrowedApi(lanesOf(panel.latestDraft).api) ? panel.latestDraft : undefined));
    const { api: narrowed, ...others } = lanesOf(shown);
    assert.ok(narrowedApi(narrowed), JSON.stringify(narrowed));
    assert.deepEqual(others, { ui: ['src/ui/', 'src/api/server.ts'], docs: ['docs/'] }, 'the planner’s own unsaved edits');
    assert.deepEqual(lanesOf(panel.latestBase), lanesOf(base), 'the base the draft was made from: a save is still compared with it');
    assert.equal((await plan.drafts.read())?.dirty, true, 'unsaved');
    assert.equal(readFileSync(declaration, 'utf8'), onDisk, 'nothing was overwritten');
    // The narrowing is one edit of the planner: undo gives back the draft as it was.
    await vscode.commands.executeCommand('waveScope.undoPlannerEdit', folder.uri);
    await until('the planner’s draft as it was', () => JSON.stringify(lanesOf(panel.latestDraft)) === JSON.stringify(lanesOf(withDocs)));
  });

  it('a Narrow saved while the planner is open: the planner shows the narrowed plan, saved', async () => {
    await collidingPlan();
    const plan = await api.plans.get(folder);
    const server = uri('src/api/server.ts');
    const panel = await openPlannerOn();
    await until('the planner’s ⚠ on server.ts', () => api.decorations.isContested(server), 30000);
    const outcome = await narrowApi();
    assert.equal(outcome?.ok, true, outcome?.message);
    // The ⚠ comes from the planner's own analysis of its draft: it goes once the planner shows the narrowing.
    await until('no ⚠ on server.ts from the planner', () => !api.decorations.isContested(server), 30000);
    assert.ok(narrowedApi(lanesOf(panel.latestDraft).api), JSON.stringify(lanesOf(panel.latestDraft)));
    assert.deepEqual(lanesOf(panel.latestDraft), lanesOf(panel.latestBase), 'the draft is the plan saved');
    assert.equal((await plan.drafts.read())?.dirty, false, 'nothing unsaved');
  });

  it('a change of waveScope.plan.ignoreCase recomputes the collisions with the new case rule: the planner’s, the Explorer’s ⚠ and the Problems', async () => {
    const configuration = vscode.workspace.getConfiguration('waveScope.plan');
    const server = uri('src/api/server.ts');
    const contestedProblem = () => ours(server).some((diagnostic) => diagnostic.code === 'contested');
    const ignoreCase = (value: string | undefined) => configuration.update('ignoreCase', value, vscode.ConfigurationTarget.Global);
    await ignoreCase('off');
    try {
      // ui names server.ts in other letters' case: the same file only when case is ignored.
      writeWave(root(), 1, { api: ['src/api/'], ui: ['src/ui/', 'SRC/API/server.ts'] });
      writeManifest(root(), 1, ['src/api/', 'src/ui/']);
      await insightWhere('wave 1 without a collision', (insight) => insight.data.waves.some((wave) => wave.active && wave.agents.length === 2 && wave.collisions.length === 0));
      // The planner open: its collisions, and the ⚠ it reports, follow the setting.
      const panel = await openPlannerOn();
      await ignoreCase('on');
      await until('the planner’s ⚠ on server.ts, case ignored', () => api.decorations.isContested(server), 30000);
      await until('the problem on server.ts, case ignored', contestedProblem, 30000);
      await ignoreCase('off');
      await until('no ⚠ from the planner, case compared', () => !api.decorations.isContested(server), 30000);
      await until('no problem on server.ts, case compared', () => !contestedProblem(), 30000);
      // No planner: the ⚠ of the plan on disk follows it too.
      panel.close();
      await until('the planner to close', () => api.panelFor(folder) === undefined);
      await ignoreCase('on');
      await until('the ⚠ of the plan on disk, case ignored', () => api.decorations.isContested(server), 30000);
    } finally {
      await ignoreCase(undefined);
    }
  });

  // A plan's entries are anyone's text (a clone's plan, a synced wave), and the hover is trusted to run
  // commands: an entry holding Markdown link syntax is shown as text, never as a link of its own.
  it('the hover shows a scope entry holding link syntax as text, not as a link', async () => {
    const hostile = 'src/api/{**,[x](command:waveScope.showInPlanner)}';
    writeWave(root(), 1, { api: [hostile, 'package.json'], ui: ['src/ui/', 'src/api/server.ts'] });
    writeManifest(root(), 1, [hostile, 'src/ui/', 'package.json']);
    await insightWhere('the collision of wave 1', (insight) => insight.data.waves.some((wave) => wave.active && wave.collisions.some((collision) => collision.narrowings.length > 0)));
    const server = uri('src/api/server.ts');
    await until('the problem on server.ts', () => ours(server).length > 0);
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', server, new vscode.Position(0, 0));
    const markdown = hovers.flatMap((hover) => hover.contents).map((content) => (content instanceof vscode.MarkdownString ? content.value : '')).join('\n');
    assert.ok(markdown.includes('command:waveScope.narrowEntry'), markdown);
    assert.ok(!markdown.includes('[x](command:'), `the entry's link syntax reaches the hover unescaped: ${markdown}`);
    assert.ok(markdown.includes('\\[x\\]\\(command\\:waveScope\\.showInPlanner\\)'), markdown);
  });

  it('hovers, Explorer badges and the status bar say the same, with command links', async () => {
    await collidingPlan();
    await until('the problem on server.ts', () => ours(uri('src/api/server.ts')).length > 0);
    const server = await vscode.workspace.openTextDocument(uri('src/api/server.ts'));
    const hover = hoverText(await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', server.uri, new vscode.Position(0, 0)));
    assert.ok(hover.includes('is contested: owned by api (src/api/) and ui (src/api/server.ts)'), hover);
    assert.ok(hover.includes('command:waveScope.showInPlanner') && hover.includes('command:waveScope.narrowEntry'), hover);

    // Owned: the agent's letter in its lane colour; contested: the full text in the tooltip.
    const owned = api.marks.provideFileDecoration(uri('src/api/routes/orders.ts'));
    assert.equal(owned?.badge, 'A');
    assert.ok(owned?.color instanceof vscode.ThemeColor);
    assert.equal((owned.color as unknown as { id: string }).id, 'waveScope.lane1');
    assert.ok(owned.tooltip?.includes('owned by api (src/api/)'), owned.tooltip);
    const ui = api.marks.provideFileDecoration(uri('src/ui/App.tsx'));
    assert.equal(ui?.badge, 'U');
    assert.equal((ui?.color as unknown as { id: string }).id, 'waveScope.lane2');
    assert.ok(api.marks.provideFileDecoration(uri('src/api/server.ts'))?.tooltip?.includes('witness src/api/server.ts'));
    // Outside every scope: the quieter hint.
    const outside = api.marks.provideFileDecoration(uri('docs/ordering.md'));
    assert.ok(outside?.tooltip?.includes('outside'), JSON.stringify(outside));
    assert.equal(outside?.badge, undefined);

    // The status bar: active wave, agents, collisions; the owner of the active editor.
    assert.ok(/Wave 1 · 2 agents · 1 collision/.test(api.marks.statusItem.text), api.marks.statusItem.text);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri('src/ui/App.tsx')));
    await until('the owner item', () => api.marks.ownerItem.text.includes('ui'));
  });

  it('warns about a coordinator file an agent owns, in Problems and when assigning it', async () => {
    await collidingPlan();
    const problem = await until('the coordinator problem', () => ours(uri('package.json')).find((diagnostic) => diagnostic.code === 'coordinator-file'));
    assert.equal(problem.severity, vscode.DiagnosticSeverity.Warning);
    assert.ok(problem.message.includes('"api"') && problem.message.includes('coordinator'), problem.message);
    const assigned = (await vscode.commands.executeCommand('waveScope.assignToAgent', uri('package.json'), [uri('package.json')], { wave: 1, agentId: 'ui' })) as { warnings: string[] };
    assert.equal(assigned.warnings.length, 1, JSON.stringify(assigned));
    assert.ok(assigned.warnings[0]?.includes('package.json'));
  });

  it('puts the problems of a declaration file and of a rejected manifest on their text', async () => {
    writeWave(root(), 1, { api: ['src/api/', '/etc/passwd'] });
    writeManifest(root(), 1, ['/etc/passwd']);
    await insightWhere('the file problems', (insight) => insight.data.fileProblems.length >= 2);
    const manifest = await until('the manifest problem', () => {
      const found = ours(uri('.claude/wave-scope.json'));
      return found.length > 0 ? found : undefined;
    });
    assert.ok(manifest.some((diagnostic) => diagnostic.severity === vscode.DiagnosticSeverity.Error && diagnostic.range.start.line > 0), JSON.stringify(manifest));
    const declarations = [...ours(uri('.claude/filescopes/wave-1/api.json')), ...ours(uri('.claude/filescopes/wave-1.scopes.json'))];
    const entry = declarations.find((diagnostic) => diagnostic.message.includes('/etc/passwd') || diagnostic.range.start.line > 0);
    assert.ok(entry, JSON.stringify(declarations.map((item) => [item.message, item.range.start.line])));
    const document = await vscode.workspace.openTextDocument(uri('.claude/filescopes/wave-1/api.json'));
    const text = document.getText(entry.range);
    assert.ok(declarations.some((item) => document.getText(item.range).includes('/etc/passwd')), `range text ${text}`);
  });

  it('a change of the dispatch ledger moves a lane (and the status bar) from in flight to finished', async () => {
    await collidingPlan();
    const ledger = (at: string) => {
      const key = 'editor-test|w1|implementation';
      const document = { version: 1, session: 'editor-test', waveKey: key, updated: at, waves: { [key]: [{ id: 'api', desc: 'api', files: ['src/api/'], at, agent: 'api' }] } };
      mkdirSync(join(root(), '.orchestrator'), { recursive: true });
      writeFileSync(join(root(), '.orchestrator', 'wave-dispatch-scopes.editor-test.json'), `${JSON.stringify(document, null, 2)}\n`);
    };
    // Open the planner first: its lanes hear of the ledger.
    await vscode.commands.executeCommand('waveScope.openPlanner', folder.uri);
    const panel = await until('the planner', () => api.panelFor(folder));
    await until('the planner ready', () => panel.isReady, 45000);

    const reads = api.insights.activityReads.count;
    ledger(new Date().toISOString());
    await until('the watcher to read the ledger', () => api.insights.activityReads.count > reads, 15000).catch((error: unknown) => {
      throw new Error(`${String(error)}; reads ${api.insights.activityReads.count}, ${api.insights.activityReads.lastProblem}`);
    });
    await until('api in flight', () => api.insights.of(folder)?.activity.activities.find((item) => item.agent === 'api' && item.state === 'in-flight'), 30000).catch((error: unknown) => {
      throw new Error(`${String(error)}; reads ${api.insights.activityReads.count}, ${api.insights.activityReads.lastProblem}, ${JSON.stringify(api.insights.of(folder)?.activity)}`);
    });
    await until('the status bar in flight', () => api.marks.statusItem.text.includes('1 in flight'));
    await until('the lane in flight', () => api.planners.activityOf(folder).some((item) => item.agent === 'api' && item.state === 'in-flight'));

    // Dispatched 40 minutes ago without evidence: finished by the TTL.
    ledger(new Date(Date.now() - 40 * 60_000).toISOString());
    await until('api finished', () => api.insights.of(folder)?.activity.activities.find((item) => item.agent === 'api' && item.state === 'finished'), 30000);
    await until('the status bar finished', () => api.marks.statusItem.text.includes('1 finished') && !api.marks.statusItem.text.includes('in flight'));
    assert.ok(api.planners.activityOf(folder).some((item) => item.agent === 'api' && item.state === 'finished' && item.presumed));
  });

  it('reports a draft wave\'s collision only when waveScope.decorations.draftWaves is on, as a warning', async () => {
    writeWave(root(), 1, { api: ['src/api/'] });
    writeWave(root(), 2, { docs: ['docs/'], api: ['docs/ordering.md'] });
    writeManifest(root(), 1, ['src/api/']);
    await insightWhere('the plan of two waves', (insight) => insight.data.activeWave === 1 && insight.data.waves.length === 1);
    assert.equal(ours(uri('docs/ordering.md')).length, 0, 'a draft wave is quiet by default');
    const configuration = vscode.workspace.getConfiguration('waveScope.decorations');
    await configuration.update('draftWaves', true, vscode.ConfigurationTarget.Global);
    try {
      await insightWhere('both waves analysed', (insight) => insight.data.waves.length === 2);
      const warning = await until('the draft wave problem', () => ours(uri('docs/ordering.md')).find((diagnostic) => diagnostic.code === 'contested'));
      assert.equal(warning.severity, vscode.DiagnosticSeverity.Warning);
      assert.ok(warning.message.startsWith('Wave 2 (draft):'), warning.message);
    } finally {
      await configuration.update('draftWaves', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('hides the status bar item in a folder without a plan', async () => {
    await insightWhere('no plan', (insight) => !insight.data.planOnDisk);
    assert.equal(ours(uri('src/api/server.ts')).length, 0);
    assert.equal(api.marks.statusShown, false);
    await collidingPlan();
    assert.equal(api.marks.statusShown, true);
  });
});

describe('a workspace folder opened through a symbolic link (the plan in the editor)', function () {
  this.timeout(90000);
  let api: WaveScopeApi;
  let folder: vscode.WorkspaceFolder;
  let base: string;
  /** The opened fixture repository through a link to its top level, and through a link to its src/. */
  let toRoot: vscode.WorkspaceFolder;
  let toSrc: vscode.WorkspaceFolder;
  const below = (at: vscode.WorkspaceFolder, path: string) => vscode.Uri.joinPath(at.uri, ...path.split('/'));

  before(async () => {
    ({ api, folder } = await hostFolder());
    base = realpathSync(mkdtempSync(join(tmpdir(), 'wave-scope-linked-')));
    symlinkSync(folder.uri.fsPath, join(base, 'app'));
    symlinkSync(join(folder.uri.fsPath, 'src'), join(base, 'src-link'));
    // Workspace folder values the registry plans like any other (the workspace itself is left as it is).
    toRoot = { uri: vscode.Uri.file(join(base, 'app')), name: 'app-link', index: 97 };
    toSrc = { uri: vscode.Uri.file(join(base, 'src-link')), name: 'src-link', index: 98 };
  });

  async function startClean(): Promise<void> {
    await startFromNoPlan({ api, folder }, ['.claude', '.orchestrator']);
    await api.insights.refresh(folder);
  }

  beforeEach(startClean);
  after(async () => {
    for (const linked of [toRoot, toSrc]) api.plans.forget(linked);
    await startClean();
    await api.marks.update();
    rmSync(base, { recursive: true, force: true });
  });

  /** The colliding plan of the first suite (api and ui both own src/api/server.ts), analysed for `linked`. */
  async function collidingPlanFor(linked: vscode.WorkspaceFolder): Promise<FolderInsight> {
    writeWave(folder.uri.fsPath, 1, { api: ['src/api/', 'package.json'], ui: ['src/ui/', 'src/api/server.ts'] });
    writeManifest(folder.uri.fsPath, 1, ['src/api/', 'src/ui/', 'package.json']);
    const deadline = Date.now() + 30000;
    for (;;) {
      const insight = await api.insights.refresh(linked);
      await api.marks.update();
      if (insight?.data.waves.some((wave) => wave.active && wave.collisions.length > 0)) return insight;
      if (Date.now() > deadline) throw new Error(`timed out waiting for the collision in ${linked.name}`);
      await new Promise((wake) => setTimeout(wake, 100));
    }
  }

  it('the opened folder is no link: its files keep the repository root’s URIs', async () => {
    const plan = await api.plans.get(folder);
    assert.ok(plan.repoRoot);
    for (const path of ['src/api/server.ts', 'package.json', '.claude/wave-scope.json']) {
      assert.equal(plan.uriOf(path)?.toString(), vscode.Uri.joinPath(vscode.Uri.file(plan.repoRoot), ...path.split('/')).toString(), path);
    }
    assert.deepEqual(
      plan.roots().map((root) => root.uri.toString()),
      [vscode.Uri.file(plan.repoRoot).toString()],
    );
  });

  it('a folder linked to the repository gets a contested file’s problem, hover and Explorer badge under its own URI', async () => {
    const plan = await api.plans.get(toRoot);
    assert.equal(plan.repoRoot, realpathSync(folder.uri.fsPath), 'git reports the real top level');
    await collidingPlanFor(toRoot);
    const server = below(toRoot, 'src/api/server.ts');

    const problem = await until('the problem on the linked server.ts', () => ours(server).find((diagnostic) => diagnostic.code === 'contested'));
    assert.ok(problem.message.includes('witness src/api/server.ts'), problem.message);
    assert.ok(api.marks.provideFileDecoration(server)?.tooltip?.includes('is contested'), JSON.stringify(api.marks.provideFileDecoration(server)));

    const document = await vscode.workspace.openTextDocument(server);
    const hover = hoverText(await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', document.uri, new vscode.Position(0, 0)));
    assert.ok(hover.includes('is contested: owned by api (src/api/) and ui (src/api/server.ts)'), hover);

    // The Explorer's ⚠ of the plan on disk, as the extension shows it when no planner is open.
    await api.planners.showDiskContested(plan);
    assert.ok(api.decorations.isContested(server), 'the ⚠ is keyed by the linked URI');
    assert.equal(api.decorations.provideFileDecoration(server)?.badge, '⚠');
    assert.equal(api.decorations.isContested(below(toRoot, 'src/api/routes/orders.ts')), false, 'a file only api owns is not contested');
  });

  it('a folder linked to a subfolder: files inside it are keyed below the link, the others at their real path; the planner is told the link for drops', async () => {
    const plan = await api.plans.get(toSrc);
    assert.ok(plan.repoRoot);
    const real = (path: string) => vscode.Uri.joinPath(vscode.Uri.file(plan.repoRoot ?? ''), ...path.split('/'));
    assert.equal(plan.uriOf('src/api/server.ts')?.toString(), below(toSrc, 'api/server.ts').toString());
    assert.equal(plan.uriOf('package.json')?.toString(), real('package.json').toString());

    await collidingPlanFor(toSrc);
    await until('the problem on the linked api/server.ts', () => ours(below(toSrc, 'api/server.ts')).find((diagnostic) => diagnostic.code === 'contested'));
    await api.planners.showDiskContested(plan);
    assert.ok(api.decorations.isContested(below(toSrc, 'api/server.ts')));

    // What the planner's webview is told, to take files dropped from this folder's Explorer.
    const ready = await api.planners.ready(toSrc);
    assert.deepEqual(ready.dropRoots, [
      { uri: vscode.Uri.file(plan.repoRoot).toString(), repoRelative: '' },
      { uri: toSrc.uri.toString(), repoRelative: 'src' },
    ]);

    // A folder that leaves takes its ⚠ marks along (nothing else would replace them).
    api.plans.forget(toSrc);
    assert.equal(api.decorations.isContested(below(toSrc, 'api/server.ts')), false);
  });
});
