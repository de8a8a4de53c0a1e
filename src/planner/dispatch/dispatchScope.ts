// The scope a dispatch claims: the prompt's FILE-SCOPE block, or, when the prompt names a declared agent
// of the wave (by id or by the echo instruction's digest), that agent's declared scope, checked against
// the block. Decided before the ledger is read, so the cheap rows of the matrix (no marker, no block, an
// invalid entry) never take the lock.
import { COORDINATOR_ID } from '../plan/agentId';
import { promoteDirectory } from '../plan/scopeRecords';
import { scopeDigest } from '../scope/scopeDigest';
import type { GrammarOptions } from '../scope/scopeEntry';
import type { DispatchRequest } from './dispatchRequest';
import { extractPromptScope, findAgentNaming } from './promptScope';
import type { AgentNaming, PromptScope } from './promptScope';

/** One declared agent of the active wave (from the aggregate sidecar). */
export interface DeclaredAgent {
  readonly id: string;
  /** Its declared entries (normalised by the declaration writer). */
  readonly files: readonly string[];
  /** scopeDigest of `files` (readers may compute it on first use: see declaredAgent). */
  readonly digest: string;
}

/** A declared agent whose digest is computed when first asked for, at most once. */
export function declaredAgent(id: string, files: readonly string[]): DeclaredAgent {
  let digest: string | undefined;
  return {
    id,
    files,
    get digest() {
      if (digest === undefined) {
        try {
          digest = scopeDigest(files);
        } catch {
          // An entry the grammar refuses: a digest no prompt can name.
          digest = 'invalid';
        }
      }
      return digest;
    },
  };
}

/** The active wave's declarations, as far as the hook could read them. */
export type DeclaredWave =
  | { readonly kind: 'declared'; readonly wave: number; readonly agents: readonly DeclaredAgent[] }
  | { readonly kind: 'none'; readonly reason: 'no-manifest' | 'no-declaration' | 'unusable-declaration'; readonly problem?: string };

/** How a named agent was recognised. */
export type NamingSignal = 'id' | 'digest' | 'description';

/** Which declared agent the prompt dispatches. */
export type DeclaredMatch =
  /** The prompt names no agent of the wave. */
  | { readonly kind: 'none' }
  /** It names ids or digests the wave does not declare. */
  | { readonly kind: 'unknown'; readonly ids: readonly string[]; readonly digests: readonly string[] }
  | { readonly kind: 'matched'; readonly agent: DeclaredAgent; readonly signals: readonly NamingSignal[] }
  /** Its signals name different agents: every one of them is claimed, none is bound. */
  | { readonly kind: 'conflict'; readonly agents: readonly DeclaredAgent[] };

/** The prompt's block against the declared scope it names. */
export interface ScopeMismatch {
  /** Declared entries the block does not list. */
  readonly missing: readonly string[];
  /** Block entries the declaration does not list. */
  readonly extra: readonly string[];
}

export interface DispatchScope {
  readonly prompt: PromptScope;
  readonly naming: AgentNaming;
  readonly declared: DeclaredMatch;
  /** The block's valid entries (directory entries promoted on evidence). */
  readonly blockEntries: readonly string[];
  /**
   * What the agent may claim: the declared scope and the block together (an agent reads its prompt, so
   * a block entry the plan does not give it is still a claim the guard must see).
   */
  readonly claim: readonly string[];
  readonly mismatch?: ScopeMismatch;
  /** scopeDigest of `blockEntries`; absent for an empty block. */
  readonly scopeDigest?: string;
  /** The digest of the prompt's echo instruction line. */
  readonly instructedDigest?: string;
  /** Whether the echo line and the block carry the same digest (null: not both present). */
  readonly digestConsistent: boolean | null;
}

/** Whether the dispatch has a scope to check (otherwise rows 5 and 6 allow it unrecorded). */
export function hasScope(scope: DispatchScope): boolean {
  return scope.prompt.kind === 'block' || scope.declared.kind === 'matched' || scope.declared.kind === 'conflict';
}

function matchDeclared(naming: AgentNaming, request: DispatchRequest, wave: DeclaredWave): DeclaredMatch {
  if (wave.kind !== 'declared') {
    return naming.ids.length > 0 || naming.digests.length > 0 ? { kind: 'unknown', ids: naming.ids, digests: naming.digests } : { kind: 'none' };
  }
  const agents = wave.agents.filter((agent) => agent.id !== COORDINATOR_ID);
  const named = new Map<string, { agent: DeclaredAgent; signals: Set<NamingSignal> }>();
  const note = (agent: DeclaredAgent, signal: NamingSignal) => {
    const entry = named.get(agent.id) ?? { agent, signals: new Set<NamingSignal>() };
    entry.signals.add(signal);
    named.set(agent.id, entry);
  };
  const unknownIds: string[] = [];
  const unknownDigests: string[] = [];
  for (const id of naming.ids) {
    const agent = agents.find((candidate) => candidate.id === id);
    if (agent === undefined) unknownIds.push(id);
    else note(agent, 'id');
  }
  for (const digest of naming.digests) {
    // The agents the prompt named by id are asked first: when one of them has the digest, the signals
    // agree and no other agent's digest needs computing (they are hashes; the hook's path is a budget).
    const namedWith = [...named.values()].map(({ agent }) => agent).filter((agent) => agent.digest === digest);
    const owners = namedWith.length > 0 ? namedWith : agents.filter((candidate) => candidate.digest === digest);
    if (owners.length === 0) unknownDigests.push(digest);
    for (const agent of owners) note(agent, 'digest');
  }
  const byDescription = agents.find((candidate) => candidate.id === request.description.trim());
  if (byDescription !== undefined) note(byDescription, 'description');
  const found = [...named.values()];
  if (found.length === 1) {
    const [only] = found as [{ agent: DeclaredAgent; signals: Set<NamingSignal> }];
    return { kind: 'matched', agent: only.agent, signals: [...only.signals] };
  }
  if (found.length > 1) return { kind: 'conflict', agents: found.map(({ agent }) => agent) };
  return unknownIds.length > 0 || unknownDigests.length > 0 ? { kind: 'unknown', ids: unknownIds, digests: unknownDigests } : { kind: 'none' };
}

function union(lists: ReadonlyArray<readonly string[]>): string[] {
  return [...new Set(lists.flat())];
}

/**
 * Reads the scope of one dispatch. `isDirectory` answers for a repository-relative path: a plain block
 * entry naming an existing directory means everything beneath it (`src/lib` → `src/lib/`), as a declared
 * entry does.
 */
export function analyseDispatchScope(
  request: DispatchRequest,
  wave: DeclaredWave,
  options: GrammarOptions & { isDirectory?: (path: string) => boolean } = {},
): DispatchScope {
  const prompt = extractPromptScope(request.prompt, options);
  const naming = findAgentNaming(request.prompt);
  const declared = matchDeclared(naming, request, wave);
  const isDirectory = options.isDirectory;
  const promote = (entry: string) =>
    isDirectory === undefined ? entry : promoteDirectory(entry, { has: (path) => !isDirectory(path), hasFilesBeneath: (path) => isDirectory(path) }, options);
  const blockEntries = prompt.kind === 'block' ? [...new Set(prompt.entries.map(promote))] : [];
  const declaredLists = declared.kind === 'matched' ? [declared.agent.files] : declared.kind === 'conflict' ? declared.agents.map((agent) => agent.files) : [];
  const claim = union([...declaredLists, blockEntries]);
  const blockDigest = blockEntries.length > 0 ? scopeDigest(blockEntries) : undefined;
  let mismatch: ScopeMismatch | undefined;
  if (declared.kind === 'matched' && prompt.kind === 'block' && blockDigest !== declared.agent.digest) {
    const block = new Set(blockEntries);
    const own = new Set(declared.agent.files);
    mismatch = { missing: declared.agent.files.filter((entry) => !block.has(entry)), extra: blockEntries.filter((entry) => !own.has(entry)) };
  }
  const instructedDigest = naming.digests[0];
  return {
    prompt,
    naming,
    declared,
    blockEntries,
    claim,
    ...(mismatch !== undefined ? { mismatch } : {}),
    ...(blockDigest !== undefined ? { scopeDigest: blockDigest } : {}),
    ...(instructedDigest !== undefined ? { instructedDigest } : {}),
    digestConsistent: instructedDigest !== undefined && blockDigest !== undefined ? instructedDigest === blockDigest : null,
  };
}
