#!/usr/bin/env node
// `npm run demo:cli`: the headless half of the main job on the bundled demo repository. Copies demo/repo into a fresh temporary
// git repository (so `git ls-files` gives the known files, as in a real checkout) and validates the demo
// plan there with the built CLI, exactly as a coordinator would before dispatching a wave.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const repo = mkdtempSync(join(tmpdir(), 'wave-scope-demo-'));
cpSync(join(root, 'demo', 'repo'), repo, { recursive: true });
const git = (...args) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
git('init', '--quiet');
git('add', '--all');
git('-c', 'user.name=Wave Scope Demo', '-c', 'user.email=demo@example.invalid', 'commit', '--quiet', '-m', 'demo');

const plan = join(root, 'demo', 'wave-1.json');
const args = ['validate', '--assert-disjoint', plan, '--no-manifest'];
console.log(`Demo repository: ${repo}`);
console.log(`$ wave-scope ${args.join(' ')}\n`);
const run = spawnSync(process.execPath, [join(root, 'dist', 'cli.js'), ...args], { cwd: repo, stdio: 'inherit' });
if (run.status === 0) console.log('\nThe plan is disjoint: every file has at most one owner.');
else if (run.status === 1) console.log('\nExit 1: the plan hands files to two agents (above). Fix demo/wave-1.json and run again.');
process.exitCode = run.status === 0 || run.status === 1 ? 0 : (run.status ?? 2);
