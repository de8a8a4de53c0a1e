// `wave-scope install-hooks`: merges the write gate into each agent CLI's project hook file and the
// commit guard into git's pre-commit hook, through one launcher under the state directory
// (docs/hooks.md explains the launcher). Every file is read and checked before the first write, and
// every write is atomic, so a malformed settings file leaves everything untouched.
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { printLine, reportError } from '../cliIo';
import type { CliIo } from '../cliIo';
import { reportBadArguments } from '../commandLine';
import { installHooksMessages as say } from '../messages';
import {
  AGENT_HOOK_TARGETS,
  CHAINED_SUFFIX,
  formatSettings,
  HookConfigError,
  launcherSource,
  mergeAgentHook,
  planPreCommitInstall,
  planPreCommitRemoval,
  preCommitHookPath,
  removeAgentHook,
} from '../../planner/enforce/hookInstaller';
import type { AgentHookTarget } from '../../planner/enforce/hookInstaller';
import { runGit } from '../../node/git';
import { canonicalDirectory, nodeLocateFileSystem } from '../../node/hookFileSystem';
import { locateRepository } from '../../planner/enforce/repoLocation';
import { processLocalSessionIds } from '../../planner/plan/sessionBinding';
import { LAUNCHER_FILE_NAME, resolveStateDir } from '../../planner/plan/stateDir';

type AgentCli = AgentHookTarget['agentCli'];

interface Options {
  agents: AgentCli[];
  git: boolean;
  uninstall: boolean;
  dryRun: boolean;
  explicit: boolean;
}

function parseOptions(args: string[]): Options | string {
  const options: Options = { agents: [], git: false, uninstall: false, dryRun: false, explicit: false };
  for (const arg of args) {
    const agent = arg.startsWith('--') ? (arg.slice(2) as AgentCli) : undefined;
    if (agent !== undefined && AGENT_HOOK_TARGETS.some((target) => target.agentCli === agent)) {
      options.agents.push(agent);
      options.explicit = true;
    } else if (arg === '--git') {
      options.git = true;
      options.explicit = true;
    } else if (arg === '--uninstall') options.uninstall = true;
    else if (arg === '--dry-run') options.dryRun = true;
    else return say.unknownOption(arg);
  }
  return options;
}

/** Single-quotes a path for `sh -c` (the agent CLIs and git run hook commands through a shell). */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The CLI bundle running now, to record in the launcher: dist/cli.js beside the running dist/cli.js or dist/hook.js. */
function runningCliPath(): string | undefined {
  const script = process.argv[1];
  if (script === undefined) return undefined;
  const name = basename(script);
  if (name !== 'cli.js' && name !== 'hook.js') return undefined;
  const cli = join(dirname(realpathSync(script)), 'cli.js');
  return existsSync(cli) ? cli : undefined;
}

interface PlannedWrite {
  path: string;
  action: 'write' | 'remove' | 'rename';
  text?: string;
  mode?: number;
  /** For `rename`: the new name. */
  to?: string;
}

function readIfPresent(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

export async function runInstallHooks(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    printLine(io, say.usage);
    return 0;
  }
  const parsed = parseOptions(args);
  if (typeof parsed === 'string') {
    reportBadArguments(io, 'install-hooks', parsed);
    return 2;
  }
  const location = locateRepository(canonicalDirectory(io.cwd), nodeLocateFileSystem);
  if (location === undefined) {
    reportError(io, say.notInRepository(io.cwd));
    return 2;
  }
  const root = realpathSync(location.manifestRoot);
  const resolution = resolveStateDir(root, processLocalSessionIds({ env: io.env }), nodeLocateFileSystem);
  const stateName = resolution.name;
  const launcherPath = join(root, stateName, LAUNCHER_FILE_NAME);

  const agents = parsed.explicit
    ? parsed.agents
    : AGENT_HOOK_TARGETS.filter((target) => existsSync(join(root, dirname(target.configFile)))).map((target) => target.agentCli);
  const git = parsed.explicit ? parsed.git : true;

  // `|| exit 2`: if node itself fails (launcher deleted, node broken) the hook still blocks, since
  // every supported agent CLI lets a write through on any other non-zero exit.
  const commandFor = (agentCli: AgentCli): string =>
    agentCli === 'claude'
      ? `node "$CLAUDE_PROJECT_DIR"/${shellQuote(`${stateName}/${LAUNCHER_FILE_NAME}`)} enforce-write --agent-cli claude || exit 2`
      : `node ${shellQuote(launcherPath)} enforce-write --agent-cli ${agentCli} || exit 2`;

  const plan: PlannedWrite[] = [];
  for (const target of AGENT_HOOK_TARGETS.filter((candidate) => agents.includes(candidate.agentCli))) {
    const path = join(root, target.configFile);
    const existing = readIfPresent(path);
    let doc: unknown;
    try {
      doc = existing === undefined || existing.trim() === '' ? undefined : (JSON.parse(existing) as unknown);
      if (parsed.uninstall) {
        if (existing === undefined) continue;
        const removal = removeAgentHook(doc, target);
        if (removal.removed) plan.push({ path, action: 'write', text: formatSettings(removal.doc) });
      } else {
        const text = formatSettings(mergeAgentHook(doc, target, commandFor(target.agentCli)));
        if (text !== existing) plan.push({ path, action: 'write', text });
      }
    } catch (error) {
      const detail = error instanceof HookConfigError || error instanceof SyntaxError ? error.message : String(error);
      reportError(io, say.badSettings(path, detail));
      return 1;
    }
  }

  if (git) {
    let hooksPath: string | undefined;
    try {
      hooksPath = runGit(location.writeRoot, ['config', '--get', 'core.hooksPath']).trim();
    } catch {
      hooksPath = undefined;
    }
    const hookFile = preCommitHookPath({ topLevel: location.writeRoot, commonDir: location.commonDir, hooksPath });
    const existing = readIfPresent(hookFile);
    if (parsed.uninstall) {
      const removal = planPreCommitRemoval(existing);
      if (removal.kind === 'write') plan.push({ path: hookFile, action: 'write', text: removal.text, mode: 0o755 });
      else if (removal.kind === 'delete') plan.push({ path: hookFile, action: 'remove' });
      else if (removal.kind === 'restore-chained') {
        plan.push({ path: hookFile, action: 'remove' });
        if (existsSync(`${hookFile}${CHAINED_SUFFIX}`)) plan.push({ path: `${hookFile}${CHAINED_SUFFIX}`, action: 'rename', to: hookFile });
      }
    } else {
      const install = planPreCommitInstall(existing, `node ${shellQuote(launcherPath)} commit-guard`);
      if (install.kind === 'chain') plan.push({ path: hookFile, action: 'rename', to: `${hookFile}${CHAINED_SUFFIX}` });
      if (install.text !== existing) plan.push({ path: hookFile, action: 'write', text: install.text, mode: 0o755 });
    }
  }

  if (parsed.uninstall) {
    if (!parsed.explicit && existsSync(launcherPath)) plan.push({ path: launcherPath, action: 'remove' });
  } else {
    const cli = runningCliPath();
    const text = launcherSource(cli === undefined ? [] : [cli]);
    if (readIfPresent(launcherPath) !== text) plan.push({ path: launcherPath, action: 'write', text, mode: 0o755 });
  }

  for (const step of plan) {
    if (parsed.dryRun) {
      printLine(io, step.action === 'remove' ? say.wouldRemove(step.path) : say.wouldWrite(step.to ?? step.path));
      continue;
    }
    if (step.action === 'write') {
      mkdirSync(dirname(step.path), { recursive: true });
      writeFileAtomic.sync(step.path, step.text ?? '', { mode: step.mode ?? 0o644 });
      printLine(io, say.wrote(step.path));
    } else if (step.action === 'remove') {
      rmSync(step.path, { force: true });
      printLine(io, say.removed(step.path));
    } else if (step.to !== undefined) {
      renameSync(step.path, step.to);
      printLine(io, say.wrote(step.to));
    }
  }
  if (plan.length === 0) printLine(io, say.unchanged(root));
  return 0;
}
