/**
 * RequestDeadlines on its own: the requests in flight are a linked list, so answers arriving
 * in any order must leave it whole, and the sweep must time out exactly the overdue ones that
 * have not answered, oldest first. Responses are Node's own ServerResponse, not connected to a
 * socket (what the 504 writes stays in the response).
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { RequestDeadlines } from './timeout.js';

const response = () => new ServerResponse(new IncomingMessage(new Socket()));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('RequestDeadlines', () => {
  test('times out the overdue requests that did not answer, oldest first, whatever order the others answered in', async () => {
    const timedOut: string[] = [];
    const d = new RequestDeadlines<string>(100, (tag) => timedOut.push(tag));
    try {
      const rs = ['a', 'b', 'c', 'd', 'e'].map((tag) => ({ tag, res: response() }));
      const now = performance.now();
      for (const { tag, res } of rs) d.start(res, now, tag);
      // The head, the tail and one in the middle answer in time.
      expect(d.end(rs[0].res)).toBe(true);
      expect(d.end(rs[4].res)).toBe(true);
      expect(d.end(rs[2].res)).toBe(true);
      // A later request, still within its time when the others are overdue.
      const late = response();
      await sleep(60);
      d.start(late, performance.now(), 'late');
      await sleep(70);
      expect(timedOut).toEqual(['b', 'd']);
      expect(rs[1].res.statusCode).toBe(504);
      expect(rs[1].res.shouldKeepAlive).toBe(false);
      // Their handlers' own answers come too late; an answer given twice counts once.
      expect(d.end(rs[1].res)).toBe(false);
      expect(d.end(rs[3].res)).toBe(false);
      expect(d.end(rs[0].res)).toBe(false);
      expect(d.end(late)).toBe(true);
      await sleep(120);
      expect(timedOut).toEqual(['b', 'd']);
    } finally {
      d.stop();
    }
  });

  test("a request's own shorter timeout has its timer, also without a server timeout; stop() cancels the pending ones", async () => {
    const timedOut: string[] = [];
    const d = new RequestDeadlines<string>(0, (tag) => timedOut.push(tag));
    const quick = response();
    const answered = response();
    const cancelled = response();
    const untracked = response();
    const now = performance.now();
    d.start(quick, now, 'quick', 30);
    d.start(answered, now, 'answered', 30);
    d.start(cancelled, now, 'cancelled', 200);
    d.start(untracked, now, 'untracked');
    expect(d.end(answered)).toBe(true);
    await sleep(80);
    expect(timedOut).toEqual(['quick']);
    expect(quick.statusCode).toBe(504);
    expect(d.end(quick)).toBe(false);
    // No timeout applies to it: it answers whenever it does.
    expect(d.end(untracked)).toBe(true);
    d.stop();
    await sleep(200);
    expect(timedOut).toEqual(['quick']);
  });
});
