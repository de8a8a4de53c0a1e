// What is wrong in a declaration file or a manifest, placed on the text it is about, for an editor's
// Problems view: a per-agent scope file (`filescopes/wave-<N>/<id>.json`), a wave's aggregate
// (`filescopes/wave-<N>.scopes.json`) and `wave-scope.json`. The verdicts are the ones the CLI reaches
// (validateWaveRecords, the typo warnings, findCollisions, validateManifestDocument, the coordinator's
// files); this module only finds the JSON node each one is about. Pure: the texts come in as strings.
import { getNodeValue, parseTree } from 'jsonc-parser';
import type { Node, ParseError } from 'jsonc-parser';
import { claimedText, findCollisions } from '../scope/collisions';
import type { FileIndex } from '../scope/fileIndex';
import { scopeEntryWarnings } from '../scope/scopeWarnings';
import { COORDINATOR_ID } from './agentId';
import { coordinatorAssignment, coordinatorFileOf, coordinatorFilesNamedBy } from './coordinatorFiles';
import type { CoordinatorFile } from './coordinatorFiles';
import { validateWaveRecords } from './declarationInput';
import { validateManifestDocument } from './manifest';

/** One problem, placed on a span of the text (offsets in UTF-16 code units, end exclusive). */
export interface TextProblem {
  readonly start: number;
  readonly end: number;
  readonly severity: 'error' | 'warning';
  /** Machine-readable kind: a validation reason, `not-json`, `collision`, `coordinator-file`, a typo warning's reason, `manifest`. */
  readonly code: string;
  /** One sentence for a person. */
  readonly message: string;
}

export interface DeclarationCheckOptions {
  /** Absolute repository root (absolute entries inside it are read as relative). */
  repoRoot?: string;
  ignoreCase?: boolean;
  /** The state directory relative to the repository root (`.claude`): entries inside it are refused. */
  controlDir?: string;
  /** The repository's files: typo warnings ("names none of the files") and coordinator files. */
  files?: FileIndex;
}

function span(node: Node | undefined, text: string): { start: number; end: number } {
  if (node === undefined) {
    const firstLine = text.indexOf('\n');
    return { start: 0, end: firstLine === -1 ? text.length : firstLine };
  }
  return { start: node.offset, end: node.offset + node.length };
}

function property(object: Node | undefined, key: string): Node | undefined {
  if (object?.type !== 'object') return undefined;
  return object.children?.find((child) => child.children?.[0]?.value === key);
}

/** The tree of a strict JSON text, or the problem that it is not JSON (placed on the parser's first error). */
function tree(text: string): { root: Node } | { problem: TextProblem } {
  let message: string | undefined;
  try {
    JSON.parse(text);
  } catch (error) {
    message = error instanceof Error ? error.message : String(error);
  }
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: false, disallowComments: true, allowEmptyContent: false });
  if (message === undefined && root !== undefined) return { root };
  const first = errors[0];
  const start = first?.offset ?? 0;
  return {
    problem: {
      start,
      end: Math.min(text.length, start + Math.max(1, first?.length ?? 1)),
      severity: 'error',
      code: 'not-json',
      message: `not valid JSON: ${message ?? 'the text is empty'}`,
    },
  };
}

/** What one entry of one record is: its validation errors, its typo warnings, the coordinator files it names. */
interface EntryVerdict {
  readonly errors: readonly { code: string; message: string }[];
  readonly warnings: readonly { code: string; message: string }[];
}

/**
 * Checks the declaration files of one state directory. It remembers each entry's verdict, so an entry
 * that appears in an agent's file and again in the wave's aggregate (every entry, normally) is judged
 * once: a plan of 64 agents × 52 entries is a lot of entries.
 */
export class DeclarationChecker {
  private readonly verdicts = new Map<string, EntryVerdict>();
  private readonly coordinatorNamed = new Map<string, string[]>();

  constructor(private readonly options: DeclarationCheckOptions = {}) {}

  /** Problems of one agent's scope file: a JSON array of entry strings. `agentId` is the id its file name gives. */
  agentScopeProblems(text: string, agentId: string): TextProblem[] {
    const parsed = tree(text);
    if ('problem' in parsed) return [parsed.problem];
    const { root } = parsed;
    if (root.type !== 'array') {
      return [{ ...span(root, text), severity: 'error', code: 'not-array', message: `a scope file is a JSON array of entry strings, not ${root.type === 'object' ? 'an object' : `a ${root.type}`}` }];
    }
    const problems: TextProblem[] = [];
    this.entryProblems(text, agentId, root, problems);
    return problems;
  }

  /** Problems of a wave's aggregate: a JSON array of `{id, files}` records, proven disjoint. */
  waveSidecarProblems(text: string): TextProblem[] {
    const { options } = this;
    const parsed = tree(text);
    if ('problem' in parsed) return [parsed.problem];
    const { root } = parsed;
    if (root.type !== 'array') {
      return [{ ...span(root, text), severity: 'error', code: 'not-array', message: 'an aggregate is a JSON array of {"id", "files"} records' }];
    }
    const problems: TextProblem[] = [];
    const recordNodes = root.children ?? [];
    if (recordNodes.length === 0) {
      return [{ ...span(root, text), severity: 'error', code: 'empty', message: 'the aggregate declares no agent: a wave declares at least one record' }];
    }
    // Record-level problems (ids, shapes) from the validator over the records' shells, placed on their record.
    const shells = recordNodes.map((node) => {
      const value = getNodeValue(node) as unknown;
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
      const files = (value as { files?: unknown }).files;
      return { ...value, files: Array.isArray(files) ? [] : files };
    });
    const { errors } = validateWaveRecords(shells, { ignoreCase: options.ignoreCase });
    const seenReason = new Map<string, number>();
    for (const error of errors) {
      const position = /^records? #(\d+)(?: and #(\d+))?/.exec(error.message);
      const index = position ? Number(position[2] ?? position[1]) - 1 : -1;
      const key = `${error.reason}\0${error.record ?? ''}`;
      const nth = seenReason.get(key) ?? 0;
      seenReason.set(key, nth + 1);
      const node = recordNodes[index] ?? recordNodes.filter((item) => property(item, 'id')?.children?.[1]?.value === error.record)[nth];
      const target = error.reason === 'bad-files' ? property(node, 'files') : (property(node, 'id')?.children?.[1] ?? node);
      problems.push({ ...span(target, text), severity: 'error', code: error.reason, message: error.message });
    }
    const records: { id: string; files: string[]; filesNode: Node }[] = [];
    recordNodes.forEach((node, index) => {
      const id = property(node, 'id')?.children?.[1]?.value;
      const filesNode = property(node, 'files')?.children?.[1];
      if (typeof id !== 'string' || filesNode?.type !== 'array') return;
      this.entryProblems(text, id, filesNode, problems);
      const entries = (filesNode.children ?? [])
        .filter((entry) => entry.type === 'string' && this.verdict(id, entry.value as string).errors.length === 0)
        .map((entry) => entry.value as string);
      records.push({ id: id === '' ? `<unnamed#${index}>` : id, files: entries, filesNode });
    });
    // Collisions: what `validate --assert-disjoint` refuses, on both entries.
    const report = findCollisions(
      records.map(({ id, files }) => ({ id, files })),
      { knownFiles: options.files, ignoreCase: options.ignoreCase },
    );
    for (const collision of report.collisions) {
      for (const side of [0, 1] as const) {
        const other = side === 0 ? 1 : 0;
        const record = records.find((item) => item.id === collision.agents[side]);
        const node = record?.filesNode.children?.find((entry) => entry.value === collision.entries[side]);
        problems.push({
          ...span(node, text),
          severity: 'error',
          code: 'collision',
          message: `agents ${JSON.stringify(collision.agents[side])} and ${JSON.stringify(collision.agents[other])} both claim ${claimedText([collision.entries[side], collision.entries[other]], collision.witness)}`,
        });
      }
    }
    return problems;
  }

  /** The problems of one record's entries (the array node `files`): validation errors, typo warnings, coordinator files. */
  private entryProblems(text: string, id: string, files: Node, problems: TextProblem[]): void {
    const seenFiles = new Set<string>();
    for (const node of files.children ?? []) {
      const where = span(node, text);
      if (node.type !== 'string') {
        const got = node.type === 'null' ? 'null' : node.type === 'object' || node.type === 'array' ? 'object' : node.type;
        problems.push({ ...where, severity: 'error', code: 'bad-entry', message: `record ${JSON.stringify(id)}: every entry must be a string, got ${got}` });
        continue;
      }
      const entry = node.value as string;
      const verdict = this.verdict(id, entry);
      for (const error of verdict.errors) problems.push({ ...where, severity: 'error', ...error });
      for (const warning of verdict.warnings) problems.push({ ...where, severity: 'warning', ...warning });
      if (verdict.errors.length > 0 || id === COORDINATOR_ID) continue;
      for (const file of this.coordinatorFiles(entry)) {
        if (seenFiles.has(file)) continue;
        seenFiles.add(file);
        const assignment = coordinatorAssignment(id, entry, file, coordinatorFileOf(file, { ignoreCase: this.options.ignoreCase }) as CoordinatorFile);
        problems.push({ ...where, severity: 'warning', code: 'coordinator-file', message: assignment.message });
      }
    }
  }

  private verdict(id: string, entry: string): EntryVerdict {
    const key = `${id}\0${entry}`;
    const known = this.verdicts.get(key);
    if (known !== undefined) return known;
    const { options } = this;
    const { errors } = validateWaveRecords([{ id, files: [entry] }], { repoRoot: options.repoRoot, ignoreCase: options.ignoreCase, controlDir: options.controlDir });
    const verdict: EntryVerdict = {
      errors: errors
        .filter((error) => error.reason === 'bad-entry' || error.reason === 'control-path')
        .map((error) => ({ code: error.reason, message: error.message })),
      warnings: scopeEntryWarnings(entry, { repoRoot: options.repoRoot, ignoreCase: options.ignoreCase, files: options.files }).map((warning) => ({ code: warning.reason, message: warning.message })),
    };
    this.verdicts.set(key, verdict);
    return verdict;
  }

  private coordinatorFiles(entry: string): string[] {
    let files = this.coordinatorNamed.get(entry);
    if (files === undefined) {
      files = coordinatorFilesNamedBy(entry, this.options.files, { ignoreCase: this.options.ignoreCase });
      this.coordinatorNamed.set(entry, files);
    }
    return files;
  }
}

/** Problems of one agent's scope file (see DeclarationChecker.agentScopeProblems). */
export function agentScopeProblems(text: string, agentId: string, options: DeclarationCheckOptions = {}): TextProblem[] {
  return new DeclarationChecker(options).agentScopeProblems(text, agentId);
}

/** Problems of a wave's aggregate (see DeclarationChecker.waveSidecarProblems). */
export function waveSidecarProblems(text: string, options: DeclarationCheckOptions = {}): TextProblem[] {
  return new DeclarationChecker(options).waveSidecarProblems(text);
}

/** The JSON path a manifest message is about: `"key"`, `"key"[i]`, `"gates"."name"`, or `unknown key "x"`. */
function manifestPath(message: string): { path: (string | number)[]; key: boolean } | undefined {
  const unknown = /^unknown key "([^"]+)"/.exec(message);
  if (unknown) return { path: [unknown[1] as string], key: true };
  const located = /^"([^"]+)"(?:\[(\d+)\]|\."([^"]+)")?/.exec(message);
  if (!located) return undefined;
  const path: (string | number)[] = [located[1] as string];
  if (located[2] !== undefined) path.push(Number(located[2]));
  if (located[3] !== undefined) path.push(located[3]);
  return { path, key: / is missing|legacy spelling/.test(message) };
}

function nodeAt(root: Node, path: (string | number)[], key: boolean): Node | undefined {
  let node: Node | undefined = root;
  for (const [depth, part] of path.entries()) {
    if (node === undefined) return undefined;
    if (typeof part === 'number') node = node.type === 'array' ? node.children?.[part] : undefined;
    else {
      const found = property(node, part);
      node = key && depth === path.length - 1 ? found?.children?.[0] : found?.children?.[1];
    }
  }
  return node;
}

/** Problems of `wave-scope.json`: what `wave-scope validate` prints as errors and warnings, each on its key or element. */
export function manifestTextProblems(text: string): TextProblem[] {
  const parsed = tree(text);
  if ('problem' in parsed) return [parsed.problem];
  const validation = validateManifestDocument(text);
  const place = (message: string): { start: number; end: number } => {
    const located = manifestPath(message);
    const node = located === undefined ? undefined : nodeAt(parsed.root, located.path, located.key);
    // A missing key is about the object that lacks it: its opening brace.
    if (node === undefined && parsed.root.type === 'object') return { start: parsed.root.offset, end: parsed.root.offset + 1 };
    return span(node ?? parsed.root, text);
  };
  return [
    ...validation.errors.map((message) => ({ ...place(message), severity: 'error' as const, code: 'manifest', message })),
    ...validation.warnings.map((message) => ({ ...place(message), severity: 'warning' as const, code: 'manifest', message })),
  ];
}
