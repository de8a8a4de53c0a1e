// `npm run package` builds a VSIX with @vscode/vsce; this checks the VSIX holds exactly what
// .vscodeignore says ships, read the way a person reads it (later lines override earlier ones),
// and that a real VS Code (code-server's CLI) installs it.
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { minimatch } from 'minimatch';

const root = join(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** Every file of the working tree a packager could pick up (vsce never looks into .git or, with --no-dependencies, node_modules). */
function workingTreeFiles(directory = root): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (entry.name === '.git' || entry.name === 'node_modules') continue;
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...workingTreeFiles(path));
    else if (entry.isFile()) files.push(relative(root, path));
  }
  return files;
}

interface IgnoreRule {
  include: boolean;
  pattern: string;
}

function ignoreRules(): IgnoreRule[] {
  return readFileSync(join(root, '.vscodeignore'), 'utf8')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => (line.startsWith('!') ? { include: true, pattern: line.slice(1) } : { include: false, pattern: line }));
}

function ruleMatches(pattern: string, file: string): boolean {
  const options = { dot: true };
  if (minimatch(file, pattern, options)) return true;
  // A pattern without a wildcard in its last segment also names a folder and everything beneath it.
  const lastSegment = pattern.replace(/\/$/, '').split('/').pop() ?? '';
  return !/[*?[{]/.test(lastSegment) && minimatch(file, `${pattern.replace(/\/$/, '')}/**`, options);
}

/** Last matching line decides; a file no line matches ships (vsce's default). */
function shipsPerIgnoreFile(file: string, rules: IgnoreRule[]): boolean {
  let ships = true;
  for (const rule of rules) if (ruleMatches(rule.pattern, file)) ships = rule.include;
  return ships;
}

/** VSIX entry → repository path (vsce stores files under extension/ and renames the readme). */
function repositoryPathOf(entry: string): string | undefined {
  if (!entry.startsWith('extension/')) return undefined;
  const path = entry.slice('extension/'.length);
  const renamed: Record<string, string> = { 'readme.md': 'README.md', 'changelog.md': 'CHANGELOG.md', 'LICENSE.txt': 'LICENSE' };
  return renamed[path] ?? path;
}

function zipEntries(file: string): string[] {
  const script = 'import sys, zipfile\nprint("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))';
  return execFileSync('python3', ['-c', script, file], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

describe('npm run package (VSIX)', function () {
  this.timeout(120000);
  let workDir: string;
  let vsix: string;
  let entries: string[];

  before(() => {
    workDir = mkdtempSync(join(tmpdir(), 'wave-scope-vsix-'));
    vsix = join(workDir, 'wave-scope.vsix');
    const run = spawnSync('npm', ['run', 'package', '--', '--out', vsix], { cwd: root, encoding: 'utf8' });
    assert.equal(run.status, 0, `npm run package failed:\n${run.stdout}\n${run.stderr}`);
    entries = zipEntries(vsix);
  });

  after(() => rmSync(workDir, { recursive: true, force: true }));

  it('writes a VSIX with the manifest vsce generates', () => {
    assert.ok(existsSync(vsix));
    assert.ok(entries.includes('extension.vsixmanifest'), entries.join('\n'));
    assert.ok(entries.includes('extension/package.json'));
  });

  it('ships exactly the files .vscodeignore lets through', () => {
    const rules = ignoreRules();
    const expected = workingTreeFiles().filter((file) => shipsPerIgnoreFile(file, rules)).sort();
    const shipped = entries
      .map(repositoryPathOf)
      .filter((path): path is string => path !== undefined)
      .sort();
    assert.deepEqual(shipped, expected);
  });

  it('ships the bundles that run and nothing of the sources, tests or maps', () => {
    const shipped = entries.map(repositoryPathOf).filter((path): path is string => path !== undefined);
    for (const needed of [manifest.main ?? './dist/extension.js', './dist/cli.js', './media/dist/planner.js']) {
      assert.ok(shipped.includes(needed.replace(/^\.\//, '')), `${needed} is in the VSIX`);
    }
    const unwanted = shipped.filter((path) =>
      /^(src|test|webview|bench|scripts|demo|docs|node_modules|\.ci)\//.test(path) || /\.(ts|map)$/.test(path) || path.startsWith('.'),
    );
    assert.deepEqual(unwanted, []);
  });

  it('agrees with `vsce ls`', () => {
    const listed = execFileSync('npx', ['vsce', 'ls', '--no-dependencies'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .sort();
    const shipped = entries
      .map(repositoryPathOf)
      .filter((path): path is string => path !== undefined)
      .sort();
    assert.deepEqual(shipped, listed);
  });

  it('installs into a real VS Code (code-server --install-extension)', () => {
    const setup = spawnSync('bash', [join(root, 'test', 'support', 'setupBrowserHost.sh')], { encoding: 'utf8' });
    assert.equal(setup.status, 0, `setupBrowserHost.sh failed:\n${setup.stderr}`);
    const codeServer = setup.stdout.trim().split('\n').pop() ?? '';
    const extensionsDir = join(workDir, 'extensions');
    const userData = join(workDir, 'user-data');
    const install = spawnSync(
      codeServer,
      ['--config', '/dev/null', '--user-data-dir', userData, '--extensions-dir', extensionsDir, '--install-extension', vsix],
      { encoding: 'utf8', env: { ...process.env, XDG_DATA_HOME: join(workDir, 'xdg'), XDG_CONFIG_HOME: join(workDir, 'xdg') } },
    );
    assert.equal(install.status, 0, `install failed:\n${install.stdout}\n${install.stderr}`);
    const installed = join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`);
    assert.ok(existsSync(join(installed, 'package.json')), `${installed}/package.json exists`);
    assert.ok(existsSync(join(installed, 'dist', 'extension.js')), 'dist/extension.js installed');
  });
});
