// Files dropped from VS Code's Explorer arrive as URIs: under the repository root's, or under a workspace
// folder opened through a symbolic link, whose Explorer spells the same files with the link's path.
import assert from 'node:assert/strict';
import { droppedPathOf } from '../../webview/droppedUris';
import type { DropRoot } from '../../webview/droppedUris';

describe('droppedPathOf: the repository path of a file dropped from the Explorer', () => {
  const top: DropRoot = { uri: 'file:///data/app', repoRelative: '' };
  const cases: Array<{ name: string; uri: string; roots: DropRoot[]; path: string | undefined }> = [
    { name: 'a file under the repository root', uri: 'file:///data/app/src/a.ts', roots: [top], path: 'src/a.ts' },
    { name: 'a percent-encoded name is decoded', uri: 'file:///data/app/src/a%5B1%5D%20b.ts', roots: [top], path: 'src/a[1] b.ts' },
    { name: 'a file of another folder is ignored', uri: 'file:///data/other/a.ts', roots: [top], path: undefined },
    { name: 'a folder whose name starts like the root is another folder', uri: 'file:///data/app-old/a.ts', roots: [top], path: undefined },
    { name: 'the root itself is no file', uri: 'file:///data/app/', roots: [top], path: undefined },
    { name: 'a malformed escape is ignored', uri: 'file:///data/app/%E0%A4%A.ts', roots: [top], path: undefined },
    { name: 'nothing is accepted without roots (a folder in no repository)', uri: 'file:///data/app/src/a.ts', roots: [], path: undefined },
    // ~/code/app -> /data/app.
    {
      name: 'a file under a folder linked to the repository root',
      uri: 'file:///home/ana/code/app/src/a.ts',
      roots: [top, { uri: 'file:///home/ana/code/app', repoRelative: '' }],
      path: 'src/a.ts',
    },
    // ~/web -> /data/app/packages/web.
    {
      name: 'a file under a folder linked to a subfolder becomes a path inside that subfolder',
      uri: 'file:///home/ana/web/src/index.ts',
      roots: [top, { uri: 'file:///home/ana/web', repoRelative: 'packages/web' }],
      path: 'packages/web/src/index.ts',
    },
    // /data/app/web-link -> /data/app/packages/web: also below the root's URI; the longer root wins.
    {
      name: 'a link inside the repository: the longest root that holds the file wins',
      uri: 'file:///data/app/web-link/index.ts',
      roots: [{ uri: 'file:///data/app/web-link/', repoRelative: 'packages/web/' }, top],
      path: 'packages/web/index.ts',
    },
  ];
  for (const { name, uri, roots, path } of cases) {
    it(name, () => assert.equal(droppedPathOf(uri, roots), path));
  }
});
