// The host helpers themselves: a code-server started by startCodeServer() serves /healthz, has Wave
// Scope in its extensions folder under the name VS Code expects, and stop() leaves no process of its
// group and no throwaway folder behind. (Its own server, without a browser: a few seconds.)
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { extensionFolderName, repoRoot, startCodeServer } from '../support/codeServer.mjs';

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    assert.equal(error.code, 'ESRCH');
    return false;
  }
}

describe('code-server lifecycle helpers', function () {
  this.timeout(90000);
  let server;

  before(async () => {
    server = await startCodeServer();
  });

  after(async () => {
    await server?.stop();
  });

  it('answers /healthz on 127.0.0.1 at the port it reports', async () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${server.url}/healthz`);
    assert.equal(response.status, 200);
    const body = await response.json();
    assert.ok(['alive', 'expired'].includes(body.status), JSON.stringify(body));
  });

  it('loads this repository as <publisher>.<name>-<version>', () => {
    const expected = extensionFolderName(repoRoot);
    assert.equal(expected, `wave-scope.wave-scope-${packageVersion()}`);
    assert.ok(readdirSync(server.extensionsDir).includes(expected), readdirSync(server.extensionsDir).join(', '));
    assert.equal(realpathSync(join(server.extensionsDir, expected)), realpathSync(repoRoot));
  });

  it('stop() ends the whole process group and removes its folders', async () => {
    assert.equal(groupAlive(server.pid), true, 'the group runs before stop()');
    await server.stop();
    assert.equal(groupAlive(server.pid), false, 'no process of the group is left');
    assert.equal(existsSync(server.stateDir), false, `${server.stateDir} is removed`);
    await assert.rejects(fetch(`${server.url}/healthz`));
  });
});

function packageVersion() {
  return JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version;
}
