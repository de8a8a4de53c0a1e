// Where the declarations live below a state directory, built in one place:
//
//   <state-dir>/wave-scope.json                        the manifest
//   <state-dir>/filescopes/wave-<N>/<agent-id>.json    per agent
//   <state-dir>/filescopes/wave-<N>.scopes.json        per wave (the aggregate)
//
// Two flavours of the same layout: `relative…` builders give `/`-separated paths below the state
// directory (the hooks, the catalogue of control state and every other `/`-path reader use them), and
// the absolute builders join those onto a state directory with the platform's separator. Every
// builder checks the wave number and the agent id, so no caller can build a path from a hostile one.
import { isAbsolute, join, relative } from 'node:path';
import { AGENT_ID_PATTERN, isAgentId } from './agentId';
import { FILESCOPES_DIR_NAME, MANIFEST_FILE_NAME } from './stateDirNames';

const AGENT_FILE_SUFFIX = '.json';
const WAVE_DIR_PATTERN = /^wave-([1-9][0-9]*)$/;
const WAVE_SIDECAR_PATTERN = /^wave-([1-9][0-9]*)\.scopes\.json$/;

/** A path builder was given an agent id or wave number that cannot name a file safely. */
export class DeclarationPathError extends Error {
  constructor(
    readonly reason: 'bad-wave' | 'bad-agent-id',
    message: string,
  ) {
    super(message);
    this.name = 'DeclarationPathError';
  }
}

/** Whether `wave` is a usable wave number (a positive safe integer). */
export function isWaveNumber(wave: unknown): wave is number {
  return typeof wave === 'number' && Number.isSafeInteger(wave) && wave >= 1;
}

/** Why `wave` cannot be a wave number, as a sentence; undefined when it can. */
export function waveNumberProblem(wave: unknown): string | undefined {
  return isWaveNumber(wave) ? undefined : `wave must be a positive integer, got ${String(wave)}`;
}

/** Why `agentId` cannot name a per-agent file, as a sentence; undefined when it can. */
export function agentIdProblem(agentId: unknown): string | undefined {
  return isAgentId(agentId) ? undefined : `agent id ${JSON.stringify(agentId)} must match ${AGENT_ID_PATTERN.source}`;
}

function checkWave(wave: number): void {
  const problem = waveNumberProblem(wave);
  if (problem !== undefined) throw new DeclarationPathError('bad-wave', problem);
}

function checkAgentId(agentId: string): void {
  const problem = agentIdProblem(agentId);
  if (problem !== undefined) throw new DeclarationPathError('bad-agent-id', problem);
}

// ---------------------------------------------------------------------------------------------
// `/`-separated, relative to the state directory

/** `filescopes/wave-<N>`. Throws DeclarationPathError for a bad wave. */
export function relativeWaveDirPath(wave: number): string {
  checkWave(wave);
  return `${FILESCOPES_DIR_NAME}/wave-${wave}`;
}

/** `filescopes/wave-<N>/<agentId>.json`. Throws DeclarationPathError for a bad wave or an id that is not a safe file name. */
export function relativeAgentScopePath(wave: number, agentId: string): string {
  checkAgentId(agentId);
  return `${relativeWaveDirPath(wave)}/${agentId}${AGENT_FILE_SUFFIX}`;
}

/** `filescopes/wave-<N>.scopes.json`. Throws DeclarationPathError for a bad wave. */
export function relativeWaveSidecarPath(wave: number): string {
  checkWave(wave);
  return `${FILESCOPES_DIR_NAME}/wave-${wave}.scopes.json`;
}

// ---------------------------------------------------------------------------------------------
// Absolute, joined onto a state directory

/** `<stateDir>/wave-scope.json` */
export function manifestPath(stateDir: string): string {
  return join(stateDir, MANIFEST_FILE_NAME);
}

/** `<stateDir>/filescopes` */
export function filescopesPath(stateDir: string): string {
  return join(stateDir, FILESCOPES_DIR_NAME);
}

/** `<stateDir>/filescopes/wave-<N>`: the directory of the per-agent files. */
export function waveDirPath(stateDir: string, wave: number): string {
  return join(stateDir, relativeWaveDirPath(wave));
}

/** `<stateDir>/filescopes/wave-<N>/<agentId>.json`. Throws DeclarationPathError for an id that is not a safe file name. */
export function agentScopePath(stateDir: string, wave: number, agentId: string): string {
  return join(stateDir, relativeAgentScopePath(wave, agentId));
}

/** `<stateDir>/filescopes/wave-<N>.scopes.json`: the aggregate sidecar. */
export function waveSidecarPath(stateDir: string, wave: number): string {
  return join(stateDir, relativeWaveSidecarPath(wave));
}

// ---------------------------------------------------------------------------------------------
// Reading names back (directory listings)

/** The agent id a per-agent file name stands for (`alice.json` → `alice`); undefined for any other name. */
export function agentIdOfFileName(name: string): string | undefined {
  if (!name.endsWith(AGENT_FILE_SUFFIX)) return undefined;
  const id = name.slice(0, -AGENT_FILE_SUFFIX.length);
  return isAgentId(id) ? id : undefined;
}

function waveNamedBy(pattern: RegExp, name: string): number | undefined {
  const wave = Number(pattern.exec(name)?.[1] ?? NaN);
  return isWaveNumber(wave) ? wave : undefined;
}

/** The wave an aggregate sidecar's file name stands for (`wave-3.scopes.json` → 3); undefined for any other name. */
export function waveOfSidecarName(name: string): number | undefined {
  return waveNamedBy(WAVE_SIDECAR_PATTERN, name);
}

/** The wave a per-agent directory's name stands for (`wave-3` → 3); undefined for any other name. */
export function waveOfDirName(name: string): number | undefined {
  return waveNamedBy(WAVE_DIR_PATTERN, name);
}

/** The wave a name in `filescopes/` stands for: an aggregate sidecar or a per-agent directory; undefined otherwise. */
export function waveOfFilescopesName(name: string): number | undefined {
  return waveOfDirName(name) ?? waveOfSidecarName(name);
}

/**
 * Where a plan's writes are confined: the repository root when the state directory lies inside it (so a
 * `.claude` that is a symbolic link is refused too: the chain writes nothing through a link below its
 * root), else the state directory itself. Every writer of a plan (the CLI's commands, the planner's Save)
 * confines to it.
 */
export function writeConfinement(repositoryRoot: string, stateDir: string): string {
  const rel = relative(repositoryRoot, stateDir);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? stateDir : repositoryRoot;
}
