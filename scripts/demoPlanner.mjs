#!/usr/bin/env node
// `npm run demo`: the main job, the planner on the bundled demo repository, in a browser-based VS Code.
// (The npm script builds first.) Copies demo/repo into a fresh temporary git repository, writes the
// demo plan (demo/wave-1.json, with its two deliberate collisions) as wave 1 under .claude/ with the
// built CLI, starts code-server with Wave Scope loaded, and prints the address to open. Runs until
// Ctrl-C, then stops code-server's whole process group. The repository is kept: its path is printed.
//
//   node scripts/demoPlanner.mjs [--port N] [--host ADDRESS] [--empty]
//     --port N          listen on N (default: 8080 when free, else any free port)
//     --host ADDRESS    listen address (default 127.0.0.1; 0.0.0.0 to reach it from another machine,
//                       then protected by a random password printed with the address)
//     --empty           start without the demo plan
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { freePort, makeFixtureRepo, repoRoot, startCodeServer } from '../test/support/codeServer.mjs';

function option(name) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

function portIsFree(port, host) {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

const host = option('host') ?? '127.0.0.1';
const port = Number(option('port') ?? ((await portIsFree(8080, host)) ? 8080 : await freePort()));

const repo = makeFixtureRepo({}, { copyFrom: join(repoRoot, 'demo', 'repo'), prefix: 'wave-scope-demo-' });
console.log(`Demo repository: ${repo.root}`);

if (!process.argv.includes('--empty')) {
  const plan = readFileSync(join(repoRoot, 'demo', 'wave-1.json'), 'utf8');
  const materialize = spawnSync(
    process.execPath,
    [join(repoRoot, 'dist', 'cli.js'), 'materialize', '--state-dir', '.claude', '--wave', '1'],
    { cwd: repo.root, input: plan, encoding: 'utf8' },
  );
  if (materialize.status === 0) console.log('Wrote the demo plan (demo/wave-1.json) as wave 1 under .claude/filescopes/.');
  else console.log(`Could not write the demo plan, starting with an empty one:\n${materialize.stderr || materialize.stdout}`);
}

console.log('Starting code-server (the first run installs it, about 2 minutes)...');
// Anyone who reaches code-server gets a terminal on this machine: off the loopback interface, a password.
const loopback = host === '127.0.0.1' || host === 'localhost' || host === '::1';
const password = loopback ? undefined : randomBytes(12).toString('base64url');
// The planner opens by itself on the demo repository (it holds a plan on disk).
const server = await startCodeServer({ port, host, password, settings: { 'waveScope.planner.openOnStartup': true } });
const address = server.folderUrl(repo.root).replace('127.0.0.1', loopback ? '127.0.0.1' : host === '0.0.0.0' ? '<this machine>' : host);
console.log(`
Open this address in a browser:

  ${address}
${password ? `\nPassword: ${password}\n` : ''}
The planner opens by itself (or run "Wave Scope: Open Planner" from the command palette, F1).
Press Ctrl-C to stop code-server. The demo repository stays at ${repo.root}.`);

// Keep the event loop alive until Ctrl-C; the signal handler installed by startCodeServer stops the
// process group and exits.
setInterval(() => {}, 1 << 30);
