// The endpoint both sides of the planner use: typed requests that reject on timeout, error replies,
// malformed results, notifications held until the ready request is answered, and closing.
import assert from 'node:assert/strict';
import * as v from 'valibot';
import type { WireMessage } from '../../src/protocol/ipc';
import { commandType, IpcEndpoint, notificationType, RequestFailedError, requestType } from '../../src/protocol/ipc';

const Echo = requestType('echo', v.object({ text: v.string() }), v.object({ echoed: v.string() }), { timeoutMs: 5000 });
const Ready = requestType('ready', v.object({}), v.object({ ok: v.boolean() }));
const Changed = notificationType('didChange', v.object({ n: v.number() }));
const Log = commandType('log', v.object({ line: v.string() }));

/** Two endpoints wired to each other, with every message each side posted. */
function pair(options: { holdUntil?: typeof Ready } = {}) {
  const sentByA: WireMessage[] = [];
  const sentByB: WireMessage[] = [];
  const problemsA: string[] = [];
  const problemsB: string[] = [];
  let connected = true;
  const a: IpcEndpoint = new IpcEndpoint({
    post: (message) => {
      sentByA.push(message);
      if (connected) void b.receive(structuredClone(message));
    },
    onProblem: (problem) => problemsA.push(problem),
  });
  const b: IpcEndpoint = new IpcEndpoint({
    post: (message) => {
      sentByB.push(message);
      if (connected) void a.receive(structuredClone(message));
    },
    onProblem: (problem) => problemsB.push(problem),
    holdNotificationsUntilReplyTo: options.holdUntil,
  });
  return { a, b, sentByA, sentByB, problemsA, problemsB, disconnect: () => (connected = false) };
}

async function rejection(promise: Promise<unknown>): Promise<RequestFailedError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof RequestFailedError, String(error));
    return error;
  }
  assert.fail('the request resolved');
}

describe('IpcEndpoint', () => {
  it('answers a request with the handler’s result, checked against the result schema', async () => {
    const { a, b } = pair();
    b.onRequest(Echo, ({ text }) => ({ echoed: text.toUpperCase() }));
    assert.deepEqual(await a.sendRequest(Echo, { text: 'hi' }), { echoed: 'HI' });
  });

  it('rejects with reason "timeout" when no answer comes in time, and reports the late answer', async () => {
    const { a, b, disconnect, problemsA } = pair();
    b.onRequest(Echo, ({ text }) => ({ echoed: text }));
    disconnect();
    const started = Date.now();
    const error = await rejection(a.sendRequest(Echo, { text: 'lost' }, { timeoutMs: 30 }));
    assert.equal(error.reason, 'timeout');
    assert.equal(error.method, 'echo');
    assert.match(error.message, /^No answer to echo within 30 ms\.$/);
    assert.ok(Date.now() - started >= 25, 'it waited for the timeout');
    await a.receive({ kind: 'reply', id: 1, result: { echoed: 'lost' } });
    assert.match(problemsA.join('\n'), /reply to request 1, which is not waiting/);
  });

  it('rejects with reason "error-reply" and the handler’s message when the handler throws', async () => {
    const { a, b } = pair();
    b.onRequest(Echo, () => {
      throw Object.assign(new Error('the disk is full'), { reason: 'disk' });
    });
    const error = await rejection(a.sendRequest(Echo, { text: 'x' }));
    assert.equal(error.reason, 'error-reply');
    assert.equal(error.message, 'the disk is full');
  });

  it('rejects with reason "invalid-result" when the answer does not match the result schema', async () => {
    const { a, b, problemsA } = pair();
    b.onRequest({ ...Echo, result: v.unknown() }, () => ({ echoed: 42 }));
    const error = await rejection(a.sendRequest(Echo, { text: 'x' }));
    assert.equal(error.reason, 'invalid-result');
    assert.match(error.message, /echoed/);
    assert.equal(problemsA.length, 1);
  });

  it('answers malformed params and unknown requests with an error instead of calling a handler', async () => {
    const { a, b, sentByB } = pair();
    let called = false;
    b.onRequest(Echo, () => {
      called = true;
      return { echoed: '' };
    });
    const malformed = await rejection(a.sendRequest({ ...Echo, params: v.unknown() }, { text: 3 }));
    assert.equal(malformed.reason, 'error-reply');
    assert.match(malformed.message, /Malformed echo request/);
    const unknown = await rejection(a.sendRequest(Ready, {}));
    assert.match(unknown.message, /Unknown request "ready"/);
    assert.equal(called, false);
    assert.deepEqual(
      sentByB.map((message) => (message.kind === 'reply' ? message.error?.reason : message.kind)),
      ['invalid-params', 'no-handler'],
    );
  });

  it('holds notifications until it has answered the ready request, then sends them in order, after the reply', async () => {
    const { a, b, sentByB } = pair({ holdUntil: Ready });
    const seen: number[] = [];
    a.onNotification(Changed, ({ n }) => seen.push(n));
    b.onRequest(Ready, () => ({ ok: true }));
    b.sendNotification(Changed, { n: 1 });
    b.sendNotification(Changed, { n: 2 });
    assert.equal(b.released, false);
    assert.equal(sentByB.length, 0, 'nothing goes out before ready');
    assert.deepEqual(await a.sendRequest(Ready, {}), { ok: true });
    assert.equal(b.released, true);
    assert.deepEqual(sentByB.map((message) => message.kind), ['reply', 'notification', 'notification']);
    assert.deepEqual(seen, [1, 2]);
    b.sendNotification(Changed, { n: 3 });
    assert.deepEqual(seen, [1, 2, 3], 'after ready, notifications go at once');
  });

  it('keeps holding notifications when the ready request failed', async () => {
    const { a, b, sentByB } = pair({ holdUntil: Ready });
    b.onRequest(Ready, () => {
      throw new Error('no repository');
    });
    b.sendNotification(Changed, { n: 1 });
    await rejection(a.sendRequest(Ready, {}));
    assert.deepEqual(sentByB.map((message) => message.kind), ['reply']);
    assert.equal(b.released, false);
  });

  it('routes commands to their handler and ignores malformed or unknown ones, reporting each', async () => {
    const { a, b, problemsB } = pair();
    const lines: string[] = [];
    b.onCommand(Log, ({ line }) => {
      lines.push(line);
    });
    a.sendCommand(Log, { line: 'one' });
    await b.receive({ kind: 'command', method: 'log', params: { line: 2 } });
    await b.receive({ kind: 'command', method: 'shout', params: {} });
    await b.receive('not a message');
    assert.deepEqual(lines, ['one']);
    assert.equal(problemsB.length, 3, problemsB.join('\n'));
  });

  it('propagates a failing command handler to the caller of receive (the boundary logs it)', async () => {
    const { b } = pair();
    b.onCommand(Log, () => {
      throw new Error('boom');
    });
    await assert.rejects(b.receive({ kind: 'command', method: 'log', params: { line: 'x' } }), /boom/);
  });

  it('close() rejects what is pending with reason "closed" and sends nothing more', async () => {
    const { a, disconnect, sentByA } = pair();
    disconnect();
    const pending = a.sendRequest(Echo, { text: 'x' });
    a.close();
    assert.equal((await rejection(pending)).reason, 'closed');
    assert.equal((await rejection(a.sendRequest(Echo, { text: 'y' }))).reason, 'closed');
    a.sendCommand(Log, { line: 'z' });
    assert.equal(sentByA.length, 1);
  });
});
