// A Node process the size `wave-scope` really is, for the benchmarks' "in a CLI process" figures: it
// loads the shipped bundle (dist/cli.js) and nothing else, then runs what it is asked, one request at a
// time, and times it where it runs: a `wave-scope` command in process (runCli), or a git operation as a
// child process (spawnSync). Timing the commands and the git operations they are set against in the same
// small process matters: starting a child costs more the larger the parent's memory is (on the VM of
// docs/sync.md, `git --version` took 3.9 ms from a 44 MB process and 6.9 ms from the 115 MB one a
// benchmark running under tsx is), and a command starts more children than its baseline does.
//
// `node bench/cliHost.cjs [path/to/cli.js]`: another build's bundle can be loaded instead (syncSpeed.ts
// --against), so two builds are timed side by side.
//
// Requests and answers are JSON lines on stdin and stdout:
//   {"kind":"cli","cwd":...,"args":[...],"env":{...},"input":"..."}  ->  {"ms":12.3,"code":0,"stderr":"..."}
//   {"kind":"git","cwd":...,"args":[...],"env":{...}}                  ->  {"ms":4.5,"code":0,"stderr":"..."}
'use strict';
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');
const { createInterface } = require('node:readline');
const { runCli } = require(process.argv[2] ?? join(__dirname, '..', 'dist', 'cli.js'));

async function answer(request) {
  if (request.kind === 'git') {
    const started = performance.now();
    const run = spawnSync('git', request.args, { cwd: request.cwd, env: request.env, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 30 });
    return { ms: performance.now() - started, code: run.status ?? 128, stderr: run.stderr ?? '' };
  }
  let stderr = '';
  const io = {
    readStdin: async () => request.input ?? '',
    writeStdout: () => undefined,
    writeStderr: (text) => void (stderr += text),
    cwd: request.cwd,
    env: request.env,
  };
  const started = performance.now();
  const code = await runCli(request.args, io);
  return { ms: performance.now() - started, code, stderr };
}

// One request at a time, in order: a timing never shares the process with another.
let queue = Promise.resolve();
createInterface({ input: process.stdin }).on('line', (line) => {
  queue = queue.then(async () => {
    let reply;
    try {
      reply = await answer(JSON.parse(line));
    } catch (error) {
      reply = { ms: NaN, code: 2, stderr: String(error && error.stack ? error.stack : error) };
    }
    process.stdout.write(`${JSON.stringify(reply)}\n`);
  });
});
