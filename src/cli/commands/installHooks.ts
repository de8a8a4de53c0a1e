// `wave-scope install-hooks`: merges the write gate into each agent CLI's project hook file and the
// commit guard into git's pre-commit hook, through one launcher under the state directory
// (docs/hooks.md explains the launcher). Every file is read and checked before the first write, and
// every write is atomic, so a malformed settings file leaves everything untouched.
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { CliIo } from '../cliIo';
import { installHooksMessages, messages } from '../messages';
import {
  AGENT_HOOK_TARGETS,
  CHAINED_SUFFIX,
  formatSettings,
  HookConfigError,
  launcherSource,
  LAUNCHER_FILE_NAME,
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
import { resolveStateDir } from '../../planner/plan/stateDir';

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
    else return `unknown option "${arg}"`;
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
    io.writeStdout(installHooksMessages.usage);
    return 0;
  }
  const parsed = parseOptions(args);
  if (typeof parsed === 'string') {
    io.writeStderr(messages.badArguments('install-hooks', parsed));
    return 2;
  }
  const location = locateRepository(canonicalDirectory(io.cwd), nodeLocateFileSystem);
  if (location === undefined) {
    io.writeStderr(installHooksMessages.notInRepository(io.cwd));
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
      io.writeStderr(installHooksMessages.badSettings(path, detail));
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
      io.writeStdout(step.action === 'remove' ? installHooksMessages.wouldRemove(step.path) : installHooksMessages.wouldWrite(step.to ?? step.path));
      continue;
    }
    if (step.action === 'write') {
      mkdirSync(dirname(step.path), { recursive: true });
      writeFileAtomic.sync(step.path, step.text ?? '', { mode: step.mode ?? 0o644 });
      io.writeStdout(installHooksMessages.wrote(step.path));
    } else if (step.action === 'remove') {
      rmSync(step.path, { force: true });
      io.writeStdout(installHooksMessages.removed(step.path));
    } else if (step.to !== undefined) {
      renameSync(step.path, step.to);
      io.writeStdout(installHooksMessages.wrote(step.to));
    }
  }
  if (plan.length === 0) io.writeStdout(installHooksMessages.unchanged(root));
  return 0;
}
