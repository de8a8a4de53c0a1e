// Files dropped from VS Code's Explorer onto the planner arrive as URIs; the host says under which URIs
// the repository's files show (ReadyResult.dropRoots: the repository root, and the workspace folder when
// it is another way in, such as a folder opened through a symbolic link). Pure.
import type { ReadyResult } from '../src/protocol/plannerProtocol';

/** A URI under which VS Code shows the repository's files, and the repository-relative folder it stands for. */
export type DropRoot = ReadyResult['dropRoots'][number];

/**
 * The repository-relative path of a URI dropped from the Explorer, or undefined when it is under none of
 * `roots` (a file of another folder, or something that is no file). The longest root that holds it
 * wins: a folder linked from inside the repository is also below the repository root's URI.
 */
export function droppedPathOf(uri: string, roots: readonly DropRoot[]): string | undefined {
  let best: { length: number; path: string } | undefined;
  for (const root of roots) {
    const prefix = root.uri.endsWith('/') ? root.uri : `${root.uri}/`;
    if (!uri.startsWith(prefix) || uri.length === prefix.length || (best && best.length >= prefix.length)) continue;
    let rest: string;
    try {
      rest = decodeURIComponent(uri.slice(prefix.length));
    } catch {
      continue;
    }
    const folder = root.repoRelative.replace(/^\/+|\/+$/g, '');
    best = { length: prefix.length, path: folder === '' ? rest : `${folder}/${rest}` };
  }
  return best?.path;
}
