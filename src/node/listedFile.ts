// The one repository file the planner webview may have the host open in an editor. The webview is a
// browser context: what it names is checked here, never joined onto the repository as it comes.
import { realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

function isBelow(root: string, path: string): boolean {
  const inside = relative(root, path);
  return inside !== '' && inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside);
}

/**
 * The absolute path of the repository file `path` names, when it is one of the files the host listed
 * (`listed`, git's spelling, exactly: no `..`, `./`, `//`, backslash or absolute spelling is one) and,
 * once links are followed, still inside `repoRoot`; undefined otherwise (a tracked link to a file
 * elsewhere, a folder replaced by a link since the listing, a file gone).
 */
export function listedFileToOpen(repoRoot: string, path: string, listed: readonly string[]): string | undefined {
  if (!listed.includes(path)) return undefined;
  const target = join(repoRoot, ...path.split('/'));
  if (!isBelow(repoRoot, target)) return undefined;
  try {
    return isBelow(realpathSync(repoRoot), realpathSync(target)) ? target : undefined;
  } catch {
    return undefined;
  }
}
