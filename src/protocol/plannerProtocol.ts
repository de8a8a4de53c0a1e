// Every message between the planner webview and the extension host, declared once: each schema gives
// both the TypeScript type (inferred) and the check the receiving side runs (src/protocol/ipc.ts).
//   XxxRequest            webview → host, answered by one reply with the same id (or it times out)
//   XxxCommand            webview → host, fire and forget
//   DidXxxNotification    host → webview
// The webview sends ReadyRequest first; the host holds its notifications until it has answered it.
// Both sides import this file and nothing else of each other. How the host stores a draft between
// sessions is its own business (src/extension/draftStore.ts), not part of this protocol.
import * as v from 'valibot';
import { isNormalisedPath } from '../planner/scope/scopeAlgebra';
import { commandType, notificationType, requestType } from './ipc';
import type { ParamsOf } from './ipc';

/** Version of the persisted webview state and of drafts; anything else is dropped. */
export const PLANNER_STATE_VERSION = 1;

// ---- the draft ---------------------------------------------------------------------------------

/** A wave number, as everywhere in Wave Scope: a positive integer. */
const WaveNumberSchema = v.pipe(v.number(), v.integer(), v.minValue(1));

/**
 * Repository-relative paths the webview names for the host to mark: only paths in normal form are kept
 * (`/`-separated segments, none empty, `.` or `..`, no backslash, not absolute); any other is dropped, so
 * nothing the webview sends can put a mark outside the repository.
 */
const RepositoryPathsSchema = v.pipe(
  v.array(v.string()),
  v.transform((paths) => paths.filter((path) => isNormalisedPath(path) && !path.includes('\\'))),
);

/** One agent of one wave in the planner's draft. */
export const AgentDraftSchema = v.object({
  /** Agent id; becomes `<state-dir>/filescopes/wave-<N>/<id>.json`. */
  id: v.string(),
  /** Lane colour, a CSS hex colour `#rrggbb`; only the planner remembers it. */
  color: v.string(),
  /** Normalised scope entries (plain paths, `dir/`, globs), in the order they were added. */
  entries: v.array(v.string()),
});
export type AgentDraft = v.InferOutput<typeof AgentDraftSchema>;

/** One wave of the draft. */
export const WaveDraftSchema = v.object({
  /** Positive wave number; the wave's name on disk is `wave-<N>`. */
  wave: WaveNumberSchema,
  /** The role the manifest records for this wave. */
  role: v.string(),
  agents: v.array(AgentDraftSchema),
});
export type WaveDraft = v.InferOutput<typeof WaveDraftSchema>;

/**
 * `wave-scope.json` as the planner records it: the wave it names and that wave's role, which a save compares,
 * and the agent session it is bound to (absent when it is unbound, and so binds every session), which the
 * header shows and a save never compares: a save keeps the binding of the manifest it replaces.
 */
export const ManifestOnDiskSchema = v.object({ wave: WaveNumberSchema, role: v.string(), boundTo: v.optional(v.string()) });
export type ManifestOnDisk = v.InferOutput<typeof ManifestOnDiskSchema>;

/** The whole plan of one workspace folder as the planner edits it. */
export const PlanDraftSchema = v.object({
  version: v.literal(PLANNER_STATE_VERSION),
  waves: v.array(WaveDraftSchema),
  /**
   * The wave the manifest names (the one agents run now), if any: a positive integer (saving refuses one the
   * draft has no tab for). A JSON copy may spell "none" as null.
   */
  activeWave: v.pipe(
    v.nullish(WaveNumberSchema),
    v.transform((wave) => wave ?? undefined),
  ),
  /**
   * The manifest on disk when this plan was read (host → webview), or the one a save of it wrote: its wave and
   * role, null when there was none. It makes the plan a save's base: an empty state directory reads as wave 1
   * active with no manifest behind it, which `activeWave` alone cannot tell from a manifest removed since.
   * A draft carries the one of the plan it started from; absent in a plan kept by an older version.
   */
  manifest: v.optional(v.nullable(ManifestOnDiskSchema)),
});
export type PlanDraft = v.InferOutput<typeof PlanDraftSchema>;

/** Whether `value` is a well-formed draft of the current version. */
export function isPlanDraft(value: unknown): value is PlanDraft {
  return v.safeParse(PlanDraftSchema, value).success;
}

// ---- shared shapes -----------------------------------------------------------------------------

/** A collision as the host reports it after a refused save. */
export const CollisionSummarySchema = v.object({
  wave: v.number(),
  agents: v.tuple([v.string(), v.string()]),
  entries: v.tuple([v.string(), v.string()]),
  witness: v.string(),
});
export type CollisionSummary = v.InferOutput<typeof CollisionSummarySchema>;

/** A wave another clone claims, as the planner shows it ("claimed by wave 3 in clone X since 10:42"). */
export const ClaimSummarySchema = v.object({
  /** The claiming clone's id and its name for people (`host:path`). */
  clone: v.string(),
  cloneName: v.string(),
  /** The claimed wave, numbered by its own clone. */
  wave: v.number(),
  /** When the clone first claimed it and when the claim lapses unless renewed (ISO 8601). */
  claimedAt: v.string(),
  expiresAt: v.string(),
  /** The claimed wave's agents and their entries. */
  agents: v.array(v.object({ id: v.string(), files: v.array(v.string()) })),
  /** Why the claimed wave cannot be read (nothing can be proven against it), if so. */
  problems: v.array(v.string()),
});
export type ClaimSummary = v.InferOutput<typeof ClaimSummarySchema>;

/** One of our agents' entries that overlaps an entry of a wave another clone claims. */
export const ClaimConflictSummarySchema = v.object({
  /** Our wave (in this draft), agent and entry. */
  wave: v.number(),
  agent: v.string(),
  entry: v.string(),
  /** The other clone, its wave, agent and entry. */
  clone: v.string(),
  cloneName: v.string(),
  otherWave: v.number(),
  otherAgent: v.string(),
  otherEntry: v.string(),
  claimedAt: v.string(),
  /** A path both name: a real file when one exists. */
  witness: v.string(),
  /** True when our side of the overlap is a test sibling the wave's role grants, not a declared entry. */
  testSibling: v.boolean(),
});
export type ClaimConflictSummary = v.InferOutput<typeof ClaimConflictSummarySchema>;

/** One agent of a wave as the plan on disk declares it. */
export const DeclaredAgentSchema = v.object({ id: v.string(), entries: v.array(v.string()) });

/** A wave as it is on disk, which the person chose to overwrite (SavePlanRequest.overwrite). */
export const WaveOnDiskSchema = v.object({ wave: WaveNumberSchema, agents: v.array(DeclaredAgentSchema) });
export type WaveOnDisk = v.InferOutput<typeof WaveOnDiskSchema>;

/** A wave someone changed on disk after the draft was made, which the save refused to write over or remove. */
export const StaleWaveSchema = v.object({
  wave: v.number(),
  /** `write`: the draft has the wave and would write its own version; `remove`: the draft deleted it. */
  action: v.picklist(['write', 'remove']),
  /** What changed on disk since the draft was made, one plain sentence each. */
  changes: v.array(v.string()),
  /** The wave's agents on disk when the save looked: what an overwrite of it names back. */
  onDisk: v.array(DeclaredAgentSchema),
});
export type StaleWaveSummary = v.InferOutput<typeof StaleWaveSchema>;

/**
 * `wave-scope.json` changed on disk since the draft was made (another wave made active, the wave given another
 * role, removed, or written where there was none), and the save would write its own over that change.
 */
export const StaleManifestSchema = v.object({
  /** The manifest on disk now, null when there is none: what an overwrite names back (SavePlanParams.overwriteManifest). */
  onDisk: v.nullable(ManifestOnDiskSchema),
  /** The manifest when the draft was made; null when there was none; absent when the base does not record it. */
  base: v.optional(v.nullable(ManifestOnDiskSchema)),
  /** The manifest the save would write. */
  draft: ManifestOnDiskSchema,
  /** What changed and what the save would do, one plain sentence. */
  change: v.string(),
});
export type StaleManifestSummary = v.InferOutput<typeof StaleManifestSchema>;

/** Outcome of a save, also sent when the save was started from the command palette. */
export const SaveOutcomeSchema = v.variant('ok', [
  v.object({
    ok: v.literal(true),
    wavesWritten: v.array(v.number()),
    manifestWave: v.optional(v.number()),
    /** The session the manifest the save wrote is bound to (it keeps the binding of the one it replaced); absent when unbound. */
    manifestBoundTo: v.optional(v.string()),
    /** The draft named no active wave, and the manifest it was made from was removed: no wave is active. */
    manifestRemoved: v.optional(v.boolean()),
    message: v.string(),
  }),
  v.object({
    ok: v.literal(false),
    message: v.string(),
    /** The step of the save chain that stopped it. */
    step: v.optional(v.string()),
    collisions: v.array(CollisionSummarySchema),
    /** Overlaps with waves other clones claim (the save was refused for them, like a local collision). */
    claimConflicts: v.optional(v.array(ClaimConflictSummarySchema)),
    /** With step `stale`: waves changed on disk after the draft was made; nothing was written. */
    staleWaves: v.optional(v.array(StaleWaveSchema)),
    /** With step `stale`: the manifest changed on disk after the draft was made (wave, role, removed); nothing was written. */
    staleManifest: v.optional(StaleManifestSchema),
  }),
]);
export type SaveOutcome = v.InferOutput<typeof SaveOutcomeSchema>;

/** The newest draft the host kept for a folder (from an earlier planner, or before a reload). */
export const KeptDraftSchema = v.object({
  draft: PlanDraftSchema,
  /** Whether it had unsaved changes; a clean draft means "the plan on disk is current". */
  dirty: v.boolean(),
  /** When the webview changed it (ms since the epoch); the newer of two copies wins. */
  updatedAt: v.number(),
  /**
   * The plan on disk the draft was edited from. The planner offers to load the disk plan only when the
   * disk now differs from this base; a record without it (an older one) never raises that offer.
   */
  base: v.optional(PlanDraftSchema),
});
export type KeptDraft = v.InferOutput<typeof KeptDraftSchema>;

/** What the host knows about the folder, answered to ReadyRequest. */
export const ReadyResultSchema = v.object({
  /** Workspace folder name, for the title. */
  folderName: v.string(),
  /** The workspace folder's URI; the webview keeps it so a restored panel finds its folder again. */
  folderUri: v.string(),
  /**
   * The URIs (`file:///…`) under which VS Code shows this repository's files, to turn files dropped from
   * the Explorer into paths: the repository root, and the workspace folder when it is another way in (a
   * subfolder, or a folder opened through a symbolic link, whose Explorer spells the files with its own
   * path), each with the repository-relative folder it stands for (`''` for the root). Empty when the
   * folder is in no git repository.
   */
  dropRoots: v.array(v.object({ uri: v.string(), repoRelative: v.string() })),
  /** Repository-relative files: tracked plus untracked and not ignored. */
  files: v.array(v.string()),
  /** Whether paths compare case-insensitively (`waveScope.plan.ignoreCase`; `auto` is git's core.ignorecase). */
  ignoreCase: v.boolean(),
  /** The plan as it is on disk now. */
  diskPlan: PlanDraftSchema,
  /** The last draft the host kept for this folder, if any; the webview keeps whichever is newer. */
  keptDraft: v.optional(KeptDraftSchema),
  /** Writing declarations needs a trusted workspace. */
  trusted: v.boolean(),
  /** A problem reading the plan from disk, for a person. */
  diskProblem: v.optional(v.string()),
  /** How long the webview waits for the answer to a later request (ms). */
  requestTimeoutMs: v.pipe(v.number(), v.minValue(1)),
  /**
   * Repository files that are control state (the state directory, hook settings, git's own files):
   * no agent can ever own them, so the tree hides them and they never count as unowned.
   */
  controlFiles: v.optional(v.array(v.string())),
  /**
   * Absolute spellings of folders of this repository (the git top level, and the workspace folder when it
   * is reached another way, such as through a symbolic link), with the folder's repository-relative path
   * (`''` for the top level): an absolute path pasted into the planner is made relative with them.
   */
  absoluteRoots: v.optional(v.array(v.object({ path: v.string(), repoRelative: v.string() }))),
});
export type ReadyResult = v.InferOutput<typeof ReadyResultSchema>;

// ---- webview → host ----------------------------------------------------------------------------

/**
 * First message of the webview: asks for the folder's files and plan. Its wait covers listing a very
 * large repository on a busy machine.
 */
export const ReadyRequest = requestType('ready', v.object({ stateVersion: v.number() }), ReadyResultSchema, { timeoutMs: 120_000 });

/** What a save is given: the draft, the plan on disk it was edited from, and what the person chose to overwrite. */
export const SavePlanParamsSchema = v.object({
  draft: PlanDraftSchema,
  /**
   * The plan on disk the draft was edited from (KeptDraft.base): only the waves it had and the draft lacks
   * are removed from disk, so a wave written on disk meanwhile (the CLI, a sync) survives a save of an
   * older draft; and a wave the save would write or remove that changed on disk since refuses the save
   * (step `stale`, SaveOutcome.staleWaves).
   */
  base: v.optional(PlanDraftSchema),
  /**
   * Waves the person chose to overwrite after a `stale` refusal, each as that refusal showed it on disk
   * (StaleWave.onDisk): the draft is written over exactly that version; a wave changed again since is refused again.
   */
  overwrite: v.optional(v.array(WaveOnDiskSchema)),
  /**
   * After a `stale` refusal for the manifest: the manifest on disk as that refusal showed it (StaleManifest.onDisk;
   * null: there was none), which the person chose to write over; any other manifest there is refused again.
   */
  overwriteManifest: v.optional(v.nullable(ManifestOnDiskSchema)),
});
export type SavePlanParams = v.InferOutput<typeof SavePlanParamsSchema>;

/** What a person chose to write over after a `stale` refusal: the fields of SavePlanParams that say so. */
export type OverwriteChoice = Pick<SavePlanParams, 'overwrite' | 'overwriteManifest'>;

/**
 * What overwriting the changes a `stale` refusal found names back: each changed wave and the manifest as the
 * refusal saw them on disk (a removed manifest as null), so only that version is written over. Undefined for
 * any other outcome.
 */
export function overwriteChoiceOf(outcome: SaveOutcome): OverwriteChoice | undefined {
  if (outcome.ok) return undefined;
  const waves = outcome.staleWaves ?? [];
  const manifest = outcome.staleManifest;
  if (waves.length === 0 && manifest === undefined) return undefined;
  return {
    overwrite: waves.map(({ wave, onDisk }) => ({ wave, agents: onDisk.map((agent) => ({ id: agent.id, entries: [...agent.entries] })) })),
    ...(manifest === undefined ? {} : { overwriteManifest: manifest.onDisk === null ? null : { ...manifest.onDisk } }),
  };
}

/**
 * The plan on disk once `draft` was saved over `base` (the plan it was edited from), as the next save's base:
 * the draft, with the manifest the save wrote (its active wave and that wave's role), or, when it named no
 * active wave and so left the manifest alone, the manifest `base` recorded.
 */
export function planAsSaved(draft: PlanDraft, base: PlanDraft | undefined, outcome?: { manifestRemoved?: boolean | undefined; manifestBoundTo?: string | undefined }): PlanDraft {
  const active = draft.waves.find((wave) => wave.wave === draft.activeWave);
  const boundTo = outcome?.manifestBoundTo;
  if (active !== undefined) return { ...draft, manifest: { wave: active.wave, role: active.role, ...(boundTo === undefined ? {} : { boundTo }) } };
  // No active wave: the save removed the manifest the draft was made from, or left the one there alone.
  return { ...draft, manifest: outcome?.manifestRemoved === true ? null : base?.manifest };
}

/** Save the draft through the safe chain. Answered with a SaveOutcome. */
export const SavePlanRequest = requestType('savePlan', SavePlanParamsSchema, SaveOutcomeSchema);

/** The draft changed in the webview; the host keeps it (reload survival, decorations, palette commands). */
export const DraftChangedCommand = commandType(
  'draftChanged',
  v.object({
    draft: PlanDraftSchema,
    /** Files two agents of the open wave both own (repository-relative), for the Explorer badges; other spellings are dropped. */
    contested: RepositoryPathsSchema,
    dirty: v.boolean(),
    updatedAt: v.number(),
    /** The disk plan the draft was edited from (KeptDraft.base). */
    base: v.optional(PlanDraftSchema),
  }),
);

/** Open a repository file in an editor. */
export const OpenFileCommand = commandType('openFile', v.object({ path: v.string() }));

/** Measured timings the webview reports (benchmarks read them from the host log). */
export const ReportTimingCommand = commandType('reportTiming', v.object({ name: v.string(), milliseconds: v.number() }));

/** Something went wrong inside the webview (a request timed out, a message was malformed); the host logs it. */
export const ReportProblemCommand = commandType('reportProblem', v.object({ message: v.string() }));

// ---- host → webview ----------------------------------------------------------------------------

/** The plan on disk changed (file watcher) or was reloaded. */
export const DidLoadPlanNotification = notificationType(
  'didLoadPlan',
  v.object({ diskPlan: PlanDraftSchema, problem: v.optional(v.string()) }),
);

/** The repository's file list changed, or how its paths compare (a change of `waveScope.plan.ignoreCase`). */
export const DidChangeFilesNotification = notificationType(
  'didChangeFiles',
  v.object({
    files: v.array(v.string()),
    /** The files among them that are control state (ReadyResult.controlFiles). */
    controlFiles: v.optional(v.array(v.string())),
    /** Whether paths compare case-insensitively now (ReadyResult.ignoreCase); absent: as before. */
    ignoreCase: v.optional(v.boolean()),
  }),
);

/** Assign paths to an agent (Explorer's "Assign to Agent…"); a new wave or agent is created first. A folder path ends with `/`. */
export const DidAssignNotification = notificationType(
  'didAssign',
  v.object({ wave: v.number(), agentId: v.string(), entries: v.array(v.string()) }),
);

/** A save ran from the command palette; show its outcome. */
export const DidSaveNotification = notificationType(
  'didSave',
  v.object({
    outcome: SaveOutcomeSchema,
    /** The draft that was saved (the new base of the webview's draft), when the save succeeded. */
    savedDraft: v.optional(PlanDraftSchema),
  }),
);

/**
 * The editor's Narrow replaced one agent's entry by the files it keeps (`narrowed`: the draft it saved, made
 * from the planner's draft or the kept one, edited from `base`), and how that save went. The planner makes
 * the same change to the draft it shows, as one edit, so its own unsaved edits stay: after a save, the
 * narrowed draft is the plan on disk; after a refusal for changes on disk (step `stale`, sent when the person
 * chose Open Planner), the refusal is shown on the narrowed draft if that draft was edited from the same plan
 * on disk as `base`. A draft that no longer has the entry is not replaced by `narrowed` unless the person says so.
 */
export const DidNarrowNotification = notificationType(
  'didNarrow',
  v.object({
    wave: WaveNumberSchema,
    agentId: v.string(),
    /** The entry that was replaced. */
    entry: v.string(),
    /** The repository files it keeps, each to be written as the entry that names exactly it. */
    files: v.array(v.string()),
    /** The draft the Narrow saved (or tried to). */
    narrowed: PlanDraftSchema,
    /** The plan on disk that draft was edited from, which the save compared the disk with. */
    base: v.optional(PlanDraftSchema),
    outcome: SaveOutcomeSchema,
  }),
);
export type EditorNarrowing = ParamsOf<typeof DidNarrowNotification>;

/** Workspace trust changed. */
export const DidChangeTrustNotification = notificationType('didChangeTrust', v.object({ trusted: v.boolean() }));

/** The planner actions a palette command can run (keyboard equivalents that live in VS Code). */
export const PLANNER_ACTIONS = ['addWave', 'addAgent', 'focusFilter', 'undo', 'redo'] as const;
export type PlannerActionName = (typeof PLANNER_ACTIONS)[number];

/** Run a planner action from a palette command. */
export const DidRequestActionNotification = notificationType('didRequestAction', v.object({ action: v.picklist(PLANNER_ACTIONS) }));

/** Show a wave (and the file a collision is about) in the planner: the editor's Open in Planner. */
export const DidFocusNotification = notificationType('didFocus', v.object({ wave: v.number(), file: v.optional(v.string()) }));

/** One agent's dispatch state, from the dispatch ledgers (`ledger show --json`). */
export const AgentActivitySchema = v.object({
  /** The wave it was dispatched in; absent when no manifest named one. */
  wave: v.optional(v.number()),
  agent: v.string(),
  state: v.picklist(['in-flight', 'finished']),
  /** Finished only because the in-flight TTL passed without evidence. */
  presumed: v.boolean(),
  since: v.string(),
});
export type AgentActivityView = v.InferOutput<typeof AgentActivitySchema>;

/** Which agents are in flight and which finished changed; the lanes show it. */
export const DidChangeAgentActivityNotification = notificationType('didChangeAgentActivity', v.object({ agents: v.array(AgentActivitySchema) }));
// ---- other clones' claims ----------------------------------------------------------------------

/**
 * Other clones' live claims (from this clone's copy of the plan ref, never the network) and the draft's
 * overlaps with them; sent after ready, when the draft or the plan on disk changes, and after a save.
 */
export const DidChangeClaimsNotification = notificationType(
  'didChangeClaims',
  v.object({
    claims: v.array(ClaimSummarySchema),
    conflicts: v.array(ClaimConflictSummarySchema),
    /** Why the claims could not be read or proven against, for a person. */
    problem: v.optional(v.string()),
  }),
);

/** Every request, command and notification of the planner, for tests and documentation. */
export const PLANNER_PROTOCOL = {
  requests: [ReadyRequest, SavePlanRequest],
  commands: [DraftChangedCommand, OpenFileCommand, ReportTimingCommand, ReportProblemCommand],
  notifications: [
    DidLoadPlanNotification,
    DidChangeFilesNotification,
    DidAssignNotification,
    DidSaveNotification,
    DidNarrowNotification,
    DidChangeTrustNotification,
    DidRequestActionNotification,
    DidFocusNotification,
    DidChangeAgentActivityNotification,
    DidChangeClaimsNotification,
  ],
} as const;
