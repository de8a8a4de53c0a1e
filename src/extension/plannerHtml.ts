// The planner's page: one stylesheet and one script, both from `media/`, under a content security
// policy whose nonce is new for every page and comes from the operating system's random source.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/** A nonce for one page: 32 characters of base62 from 24 random bytes (crypto.randomBytes, not Math.random). */
export function makeNonce(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let nonce = '';
  // Rejection sampling keeps every character equally likely (248 is the largest multiple of 62 below 256).
  while (nonce.length < 32) {
    for (const byte of randomBytes(32)) {
      if (byte < 248 && nonce.length < 32) nonce += alphabet.charAt(byte % alphabet.length);
    }
  }
  return nonce;
}

/** The page of one planner webview; nothing inline runs without the nonce, and only `media/` loads. */
export function plannerHtml(webview: vscode.Webview, extensionUri: vscode.Uri, folderName: string, nonce = makeNonce()): string {
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'dist', 'planner.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'planner.css'));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource} 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    `img-src ${webview.cspSource} data:`,
    `font-src ${webview.cspSource}`,
  ].join('; ');
  const title = folderName.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}" nonce="${nonce}">
<title>Wave planner — ${title}</title>
</head>
<body data-title="${title}">
<div id="planner" data-nonce-check="${nonce.length}"></div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}
