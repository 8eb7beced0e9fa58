/**
 * Watch events go straight to the socket, framed once per shared payload (chunkedwrite.ts).
 * A raw socket client checks the bytes on the wire: every chunk's size line matches its data
 * and ends with CRLF, the body ends with the last chunk, and the connection then carries the
 * next request — what a client that parses chunked encoding strictly depends on.
 */
import { connect, type Socket } from 'node:net';
import { EmbeddedStorage } from '@windlass/storage';
import { openWatch, startTestServer, type TestServer } from '../testing/client.js';
import { chunkFrame } from './chunkedwrite.js';

let t: TestServer;
let port: number;
beforeAll(async () => {
  t = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }) });
  port = Number(new URL(t.base).port);
});
afterAll(() => t.close());

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name.repeat(40) } });

/** A connection that reads whole HTTP/1.x responses, parsing chunked bodies strictly. */
class RawConnection {
  private buf = Buffer.alloc(0);
  private closed = false;
  private wake?: () => void;
  private readonly socket: Socket;

  constructor(to = port) {
    this.socket = connect(to, '127.0.0.1');
    this.socket.on('data', (d: Buffer) => { this.buf = Buffer.concat([this.buf, d]); this.wake?.(); });
    this.socket.on('close', () => { this.closed = true; this.wake?.(); });
  }

  send(text: string): void {
    this.socket.write(text);
  }

  private async need(n: number): Promise<void> {
    while (this.buf.length < n) {
      if (this.closed) throw new Error(`connection closed with ${this.buf.length} of ${n} bytes`);
      await new Promise<void>((r) => { this.wake = r; });
    }
  }

  private async line(): Promise<string> {
    for (;;) {
      const i = this.buf.indexOf('\r\n');
      if (i >= 0) {
        const s = this.buf.toString('latin1', 0, i);
        this.buf = this.buf.subarray(i + 2);
        return s;
      }
      await this.need(this.buf.length + 1);
    }
  }

  private async take(n: number): Promise<Buffer> {
    await this.need(n);
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }

  /** The next response: status, headers, and for a chunked body each chunk as sent. */
  async response(): Promise<{ status: number; headers: Map<string, string>; chunks: Buffer[]; body: Buffer }> {
    const status = Number((await this.line()).split(' ')[1]);
    const headers = new Map<string, string>();
    for (let h = await this.line(); h !== ''; h = await this.line()) {
      const i = h.indexOf(':');
      headers.set(h.slice(0, i).toLowerCase(), h.slice(i + 1).trim());
    }
    const chunks: Buffer[] = [];
    if (headers.get('transfer-encoding') === 'chunked') {
      for (;;) {
        const sizeLine = await this.line();
        expect(sizeLine).toMatch(/^[0-9a-f]+$/);
        const size = parseInt(sizeLine, 16);
        if (size === 0) {
          expect(await this.line()).toBe('');
          break;
        }
        chunks.push(Buffer.from(await this.take(size)));
        expect((await this.take(2)).toString('latin1')).toBe('\r\n');
      }
    } else if (headers.has('content-length')) {
      chunks.push(Buffer.from(await this.take(Number(headers.get('content-length')))));
    } else {
      while (!this.closed) await new Promise<void>((r) => { this.wake = r; });
      chunks.push(this.buf);
      this.buf = Buffer.alloc(0);
    }
    return { status, headers, chunks, body: Buffer.concat(chunks) };
  }

  /** Stops reading from the kernel: the server's writes back up behind it. */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Creates a namespace; its resourceVersion, to watch from. */
async function namespace(name: string): Promise<string> {
  const res = await t.call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
  expect(res.status).toBe(201);
  return res.body.metadata.resourceVersion;
}

const events = (body: Buffer) => body.toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));

describe('chunkFrame', () => {
  it('frames a payload as one chunk and reuses the framing for the same payload within one turn', async () => {
    const a = Buffer.from('x'.repeat(300));
    const framed = chunkFrame(a);
    expect(framed.toString('latin1')).toBe(`12c\r\n${'x'.repeat(300)}\r\n`);
    expect(chunkFrame(a)).toBe(framed);
    const b = Buffer.from('{"type":"ADDED"}\n');
    expect(chunkFrame(b).toString('latin1')).toBe('11\r\n{"type":"ADDED"}\n\r\n');
    // Equal bytes in another buffer are framed again (identity, not content, is the memo's key).
    const c = Buffer.from('x'.repeat(300));
    expect(chunkFrame(c)).not.toBe(framed);
    expect(chunkFrame(c).equals(framed)).toBe(true);
    // Dropped once the synchronous fan-out is over: nothing keeps the last event alive.
    const d = Buffer.from('y'.repeat(50));
    const framedD = chunkFrame(d);
    expect(chunkFrame(d)).toBe(framedD);
    await Promise.resolve();
    expect(chunkFrame(d)).not.toBe(framedD);
  });
});

describe('watch responses written chunk by chunk to the socket', () => {
  it('many watchers each get every event as one well-formed chunk, then the last chunk, and the connection serves the next request', async () => {
    const ns = 'chunked-many';
    const from = await namespace(ns);
    const conns = Array.from({ length: 30 }, () => new RawConnection());
    const replies = conns.map((c) => {
      c.send(`GET /api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${from}&timeoutSeconds=3 HTTP/1.1\r\nHost: x\r\n\r\n`);
      return c.response();
    });
    // From the namespace's revision, so no event is missed however late a watch starts; the pause
    // lets them start first, so the events take the live path rather than the replay.
    const names = ['a', 'b', 'c', 'd', 'e'];
    await new Promise((r) => setTimeout(r, 200));
    for (const n of names) expect((await t.call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm(n) })).status).toBe(201);
    for (const reply of await Promise.all(replies)) {
      expect(reply.status).toBe(200);
      const got = events(reply.body);
      expect(got.map((e) => `${e.type}/${e.object.metadata.name}`)).toEqual(names.map((n) => `ADDED/${n}`));
      // One event per chunk: the framing is the event's own.
      expect(reply.chunks.length).toBe(names.length);
      reply.chunks.forEach((ch, i) => expect(JSON.parse(ch.toString()).object.metadata.name).toBe(names[i]));
    }
    // Keep-alive: the bytes after the last chunk are the next response's, nothing in between.
    await Promise.all(conns.map(async (c) => {
      c.send(`GET /api/v1/namespaces/${ns}/configmaps/c HTTP/1.1\r\nHost: x\r\n\r\n`);
      const next = await c.response();
      expect(next.status).toBe(200);
      expect(JSON.parse(next.body.toString()).data.k).toBe('c'.repeat(40));
      c.close();
    }));
  });

  it('initial events written before the headers and events after them share one well-formed body', async () => {
    const ns = 'chunked-initial';
    await namespace(ns);
    for (const n of ['p', 'q']) expect((await t.call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm(n) })).status).toBe(201);
    const c = new RawConnection();
    c.send(`GET /api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=0&timeoutSeconds=2 HTTP/1.1\r\nHost: x\r\n\r\n`);
    const reply = c.response();
    await new Promise((r) => setTimeout(r, 200));
    expect((await t.call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('r') })).status).toBe(201);
    const got = events((await reply).body);
    expect(got.map((e) => `${e.type}/${e.object.metadata.name}`)).toEqual(['ADDED/p', 'ADDED/q', 'ADDED/r']);
    c.close();
  });

  it('an HTTP/1.0 watch (no chunked encoding) gets the plain event lines and a closed connection', async () => {
    const ns = 'chunked-http10';
    const from = await namespace(ns);
    const c = new RawConnection();
    c.send(`GET /api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${from}&timeoutSeconds=2 HTTP/1.0\r\nHost: x\r\n\r\n`);
    const reply = c.response();
    await new Promise((r) => setTimeout(r, 200));
    expect((await t.call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('s') })).status).toBe(201);
    const { headers, body } = await reply;
    expect(headers.get('transfer-encoding')).toBeUndefined();
    expect(events(body).map((e) => `${e.type}/${e.object.metadata.name}`)).toEqual(['ADDED/s']);
  });

  it('a watcher that stops reading is closed with a well-formed end while another gets every event', async () => {
    // The slow-reader limit counts what the socket holds: direct writes land there, not in the response.
    const small = await startTestServer({ storage: new EmbeddedStorage({ path: ':memory:' }), cacher: { maxWatcherBufferedBytes: 256 * 1024 } });
    try {
      const ns = 'chunked-slow';
      const res = await small.call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
      expect(res.status).toBe(201);
      const from = res.body.metadata.resourceVersion;
      const path = `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${from}`;
      const slow = new RawConnection(Number(new URL(small.base).port));
      slow.send(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      const slowReply = slow.response();
      const fast = openWatch(small.base, path);
      await new Promise((r) => setTimeout(r, 200));
      slow.pause();
      // 40 objects of ~400 KB: far more than the kernel's socket buffers hold for a reader that stopped.
      const n = 40;
      const big = 'z'.repeat(400 * 1024);
      for (let i = 0; i < n; i++) {
        const created = await small.call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${i}` }, data: { k: big } } });
        expect(created.status).toBe(201);
      }
      const got = await fast.waitFor(n, 30_000);
      expect(got.map((e) => e.object.metadata.name)).toEqual(Array.from({ length: n }, (_, i) => `big-${i}`));
      await fast.close();
      slow.resume();
      // The server ended the slow stream: its body parses chunk by chunk to the last chunk, with
      // every event whole and in order, and fewer than all of them.
      const { chunks } = await slowReply;
      const names = chunks.map((ch) => JSON.parse(ch.toString()).object.metadata.name);
      expect(names.length).toBeGreaterThan(0);
      expect(names.length).toBeLessThan(n);
      expect(names).toEqual(Array.from({ length: names.length }, (_, i) => `big-${i}`));
      slow.close();
    } finally {
      await small.close();
    }
  }, 60_000);
});
