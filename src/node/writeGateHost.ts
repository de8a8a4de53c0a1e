// The write gate's view of this process (`WriteGateHost`): the hooks' file system, the environment,
// the platform's folding. One home for it, so the write gate, the backstop's hooks and `wave-scope run`
// resolve paths, repositories and control state with the same host. The subagent binding is passed in
// by the caller: the write gate's bundle loads its reader only for a subagent's write.
import type { SubagentScopeQuery, WriteGateHost } from '../planner/enforce/writeGate';
import type { SubagentScope } from '../planner/dispatch/subagentBinding';
import { defaultFolding } from '../planner/enforce/writeTarget';
import { canonicalDirectory, homeDirectory, nodeLocateFileSystem, nodeTargetFileSystem } from './hookFileSystem';

export function nodeWriteGateHost(input: {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  subagentScope?: (query: SubagentScopeQuery) => SubagentScope;
}): WriteGateHost {
  const home = homeDirectory();
  return {
    targetFs: nodeTargetFileSystem,
    locateFs: nodeLocateFileSystem,
    canonicalDirectory,
    env: input.env,
    processCwd: input.cwd,
    platform: process.platform === 'win32' ? 'win32' : 'posix',
    ...(home !== undefined ? { homeDir: home } : {}),
    folding: defaultFolding(process.platform),
    ...(input.subagentScope !== undefined ? { subagentScope: input.subagentScope } : {}),
  };
}
