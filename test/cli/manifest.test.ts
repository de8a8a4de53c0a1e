// `wave-scope validate` with no assertion flag: the manifest check (planner: validateManifestDocument).
import assert from 'node:assert/strict';
import { runBuiltCli } from '../support/builtCli';

const good = { version: 1, wave: 1, role: 'implementation', allowedPaths: ['src/'], blockedCommands: [], session_id: 's' };

describe('wave-scope validate < manifest (built CLI)', () => {
  const table: Array<[string, string, number, string[], string[]]> = [
    ['a valid bound manifest', JSON.stringify(good), 0, [], []],
    ['an unbound manifest: a warning, exit 0', JSON.stringify({ ...good, session_id: undefined }), 0, [], ['the manifest names no session ("session_id"): it binds every session that shares this checkout']],
    [
      'every error at once, warnings beside them',
      JSON.stringify({ version: 1, wave: 0, role: 'implementation', allowedPaths: ['/', '~/x', '../y', '/opt/tool', '/srv2/data', '**'], blockedCommands: [], session_id: '' }),
      1,
      [
        '"wave" must be a positive integer, got 0',
        '"allowedPaths"[0] "/" grants the file-system root',
        '"allowedPaths"[1] "~/x" grants a home directory',
        '"allowedPaths"[2] "../y" climbs out of the repository with ".."',
        '"allowedPaths"[3] "/opt/tool" grants the system directory "/opt"',
        '"allowedPaths"[4] "/srv2/data" is an absolute path: write it relative to the repository root',
        '"session_id" is empty: an empty id attributes the manifest to nobody; omit the key to leave the manifest unbound',
      ],
      ['"allowedPaths"[5] "**" grants every file of the repository: the wave is not confined'],
    ],
    ['an empty allowedPaths for a writing role', JSON.stringify({ ...good, allowedPaths: [] }), 0, [], ['"allowedPaths" is empty, so role "implementation" may not write any file; is the union missing?']],
    ['an empty allowedPaths for discovery', JSON.stringify({ ...good, role: 'discovery', allowedPaths: [] }), 0, [], []],
    ['text that is not JSON', '{"version"', 1, [], []],
  ];
  for (const [name, input, status, errors, warnings] of table) {
    it(`${name} → exit ${status}`, () => {
      const result = runBuiltCli(['validate'], { input });
      assert.equal(result.status, status, result.stderr);
      const lines = result.stderr.split('\n').filter((line) => line !== '');
      const errorLines = lines.filter((line) => line.startsWith('ERROR: '));
      if (name === 'text that is not JSON') assert.match(errorLines[0] ?? '', /^ERROR: .*not valid JSON/);
      else assert.deepEqual(errorLines, errors.map((error) => `ERROR: ${error}`));
      assert.deepEqual(lines.filter((line) => line.startsWith('WARNING: ')), warnings.map((warning) => `WARNING: ${warning}`));
    });
  }
});
