// The planner's page: a content security policy with a fresh nonce from the operating system's random
// source on every page, and only media/ resources.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { makeNonce, plannerHtml } from '../../src/extension/plannerHtml';

describe('the planner page', () => {
  it('makes a new 32-character base62 nonce every time', () => {
    const nonces = Array.from({ length: 200 }, () => makeNonce());
    for (const nonce of nonces) assert.match(nonce, /^[A-Za-z0-9]{32}$/);
    assert.equal(new Set(nonces).size, nonces.length);
    // Every character class shows up across 6,400 characters of a uniform source.
    const all = nonces.join('');
    for (const range of [/[A-Z]/, /[a-z]/, /[0-9]/]) assert.match(all, range);
  });

  it('puts the nonce on its one script and stylesheet, and allows nothing else to run', () => {
    const panel = vscode.window.createWebviewPanel('waveScopeTest.page', 'page', vscode.ViewColumn.Active, { enableScripts: true });
    try {
      const extensionUri = vscode.Uri.file('/extension');
      const html = plannerHtml(panel.webview, extensionUri, 'a <b> & "c"', 'NONCE');
      assert.match(html, /script-src 'nonce-NONCE'/);
      assert.match(html, /default-src 'none'/);
      assert.equal((html.match(/nonce="NONCE"/g) ?? []).length, 2);
      assert.match(html, /<script nonce="NONCE" src="[^"]*media\/dist\/planner\.js"><\/script>/);
      assert.match(html, /Wave planner — a &#60;b&#62; &#38; &#34;c&#34;/);
    } finally {
      panel.dispose();
    }
  });
});
