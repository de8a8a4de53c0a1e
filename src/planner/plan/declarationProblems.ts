// What is wrong in a declaration file or a manifest, placed on the text it is about, for an editor's
// Problems view: a per-agent scope file (`filescopes/wave-<N>/<id>.json`), a wave's aggregate
// (`filescopes/wave-<N>.scopes.json`) and `wave-scope.json`. The verdicts are the ones the CLI reaches
// (validateWaveRecords, the typo warnings, findCollisions, validateManifestDocument, the coordinator's
// files); this module only finds the JSON node each one is about. Pure: the texts come in as strings.
import { getNodeValue, parseTree } from 'jsonc-parser';
import type { Node, ParseError } from 'jsonc-parser';
import { findCollisions } from '../scope/collisions';
import type { FileIndex } from '../scope/fileIndex';
import { compileScopeEntry } from '../scope/scopeEntry';
import { scopeEntryWarnings } from '../scope/scopeWarnings';
import { findCoordinatorAssignments } from './coordinatorFiles';
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

/** The problems of one record's entries (the array node `files`), as validation and the typo check find them. */
function entryProblems(text: string, id: string, files: Node, options: DeclarationCheckOptions, problems: TextProblem[]): void {
  const entries = files.children ?? [];
  const raw = entries.map((node) => (node.type === 'string' ? (node.value as string) : undefined));
  const { errors } = validateWaveRecords([{ id, files: entries.map((node) => getNodeValue(node) as unknown) }], {
    repoRoot: options.repoRoot,
    ignoreCase: options.ignoreCase,
    controlDir: options.controlDir,
  });
  for (const error of errors) {
    if (error.reason === 'bad-id' || error.reason === 'coordinator-spelling' || error.reason === 'missing-id') continue;
    const at = error.entry !== undefined ? raw.indexOf(error.entry) : Number(/entry #(\d+)/.exec(error.message)?.[1] ?? 0) - 1;
    problems.push({ ...span(entries[at] ?? files, text), severity: 'error', code: error.reason, message: error.message });
  }
  raw.forEach((entry, index) => {
    if (entry === undefined) return;
    for (const warning of scopeEntryWarnings(entry, { repoRoot: options.repoRoot, ignoreCase: options.ignoreCase, files: options.files })) {
      problems.push({ ...span(entries[index], text), severity: 'warning', code: warning.reason, message: warning.message });
    }
  });
}

/** The coordinator files a record's entries name, as warnings on the entries. */
function coordinatorProblems(text: string, id: string, files: Node, options: DeclarationCheckOptions, problems: TextProblem[]): void {
  const entries = files.children ?? [];
  const usable = entries.filter((node) => node.type === 'string' && compiles(node.value as string, options.ignoreCase)).map((node) => node.value as string);
  for (const assignment of findCoordinatorAssignments([{ id, files: usable }], { ignoreCase: options.ignoreCase, files: options.files })) {
    const node = entries.find((item) => item.value === assignment.entry);
    problems.push({ ...span(node, text), severity: 'warning', code: 'coordinator-file', message: assignment.message });
  }
}

function compiles(entry: string, ignoreCase: boolean | undefined): boolean {
  try {
    compileScopeEntry(entry, { ignoreCase });
    return true;
  } catch {
    return false;
  }
}

/** Problems of one agent's scope file: a JSON array of entry strings. `agentId` is the id its file name gives. */
export function agentScopeProblems(text: string, agentId: string, options: DeclarationCheckOptions = {}): TextProblem[] {
  const parsed = tree(text);
  if ('problem' in parsed) return [parsed.problem];
  const { root } = parsed;
  if (root.type !== 'array') {
    return [{ ...span(root, text), severity: 'error', code: 'not-array', message: `a scope file is a JSON array of entry strings, not ${root.type === 'object' ? 'an object' : `a ${root.type}`}` }];
  }
  const problems: TextProblem[] = [];
  entryProblems(text, agentId, root, options, problems);
  coordinatorProblems(text, agentId, root, options, problems);
  return problems;
}

/** Problems of a wave's aggregate: a JSON array of `{id, files}` records, proven disjoint. */
export function waveSidecarProblems(text: string, options: DeclarationCheckOptions = {}): TextProblem[] {
  const parsed = tree(text);
  if ('problem' in parsed) return [parsed.problem];
  const { root } = parsed;
  if (root.type !== 'array') {
    return [{ ...span(root, text), severity: 'error', code: 'not-array', message: 'an aggregate is a JSON array of {"id", "files"} records' }];
  }
  const problems: TextProblem[] = [];
  const records: { id: string; files: string[]; node: Node; filesNode: Node | undefined }[] = [];
  const recordNodes = root.children ?? [];
  const value = recordNodes.map((node) => getNodeValue(node) as unknown);
  // Record-level problems (ids, shapes) from the validator, placed on their record.
  const { errors } = validateWaveRecords(value, { repoRoot: options.repoRoot, ignoreCase: options.ignoreCase, controlDir: options.controlDir });
  const seenReason = new Map<string, number>();
  for (const error of errors) {
    if (error.reason === 'bad-entry' || error.reason === 'control-path' || error.reason === 'empty') continue;
    const position = /^records? #(\d+)(?: and #(\d+))?/.exec(error.message);
    const index = position ? Number(position[2] ?? position[1]) - 1 : -1;
    const key = `${error.reason}\0${error.record ?? ''}`;
    const nth = seenReason.get(key) ?? 0;
    seenReason.set(key, nth + 1);
    const fallback = recordNodes.filter((node) => property(node, 'id')?.children?.[1]?.value === error.record)[nth];
    const node = recordNodes[index] ?? fallback;
    const target = error.reason === 'bad-files' ? property(node, 'files') : (property(node, 'id')?.children?.[1] ?? node);
    problems.push({ ...span(target, text), severity: 'error', code: error.reason, message: error.message });
  }
  if (recordNodes.length === 0) problems.push({ ...span(root, text), severity: 'error', code: 'empty', message: 'the aggregate declares no agent: a wave declares at least one record' });
  recordNodes.forEach((node, index) => {
    const id = property(node, 'id')?.children?.[1]?.value;
    const filesNode = property(node, 'files')?.children?.[1];
    if (typeof id !== 'string' || filesNode?.type !== 'array') return;
    entryProblems(text, id, filesNode, options, problems);
    coordinatorProblems(text, id, filesNode, options, problems);
    const entries = (filesNode.children ?? []).filter((entry) => entry.type === 'string' && compiles(entry.value as string, options.ignoreCase)).map((entry) => entry.value as string);
    records.push({ id: id === '' ? `<unnamed#${index}>` : id, files: entries, node, filesNode });
  });
  // Collisions: what `validate --assert-disjoint` refuses, on both entries.
  const report = findCollisions(
    records.map(({ id, files }) => ({ id, files })),
    { knownFiles: options.files, ignoreCase: options.ignoreCase },
  );
  for (const collision of report.collisions) {
    for (const side of [0, 1] as const) {
      const other = 1 - side;
      const record = records.find((item) => item.id === collision.agents[side]);
      const node = record?.filesNode?.children?.find((entry) => entry.value === collision.entries[side]);
      problems.push({
        ...span(node, text),
        severity: 'error',
        code: 'collision',
        message: `agents ${JSON.stringify(collision.agents[side])} and ${JSON.stringify(collision.agents[other])} both claim ${collision.entries[side]} and ${collision.entries[other]} (for example ${collision.witness})`,
      });
    }
  }
  return problems;
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
