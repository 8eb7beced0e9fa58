/** A minimal HTTP client for tests of the API: raw status, headers and decoded body. */
import { APIServer, type APIServerOptions } from '../apiserver.js';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

export interface TestServer {
  server: APIServer;
  base: string;
  call(method: string, path: string, opts?: { body?: unknown; contentType?: string; accept?: string; headers?: Record<string, string> }): Promise<Reply>;
  close(): Promise<void>;
}

export async function startTestServer(opts: APIServerOptions): Promise<TestServer> {
  const server = new APIServer(opts);
  const port = await server.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${port}`;
  return {
    server,
    base,
    async call(method, path, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      let body: string | undefined;
      if (o.body !== undefined) {
        body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
        headers['content-type'] = o.contentType ?? 'application/json';
      }
      if (o.accept) headers.accept = o.accept;
      const res = await fetch(base + path, { method, headers, body });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: res.status, headers: res.headers, text, body: parsed };
    },
    close: () => server.close(),
  };
}

/** Opens a watch and collects its events as they arrive. */
export function openWatch(base: string, path: string, headers: Record<string, string> = {}) {
  const ctrl = new AbortController();
  const events: any[] = [];
  let ended = false;
  const waiters: Array<() => void> = [];
  const notify = () => waiters.splice(0).forEach((w) => w());
  const done = (async () => {
    try {
      const res = await fetch(base + path, { headers, signal: ctrl.signal });
      const reader = res.body!.getReader();
      const dec = new TextDecoder();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line) events.push(JSON.parse(line));
        }
        notify();
      }
    } catch {
      // aborted
    } finally {
      ended = true;
      notify();
    }
  })();
  return {
    events,
    get ended() { return ended; },
    /** Resolves once at least n events arrived (rejects after timeoutMs). */
    async waitFor(n: number, timeoutMs = 10000): Promise<any[]> {
      const deadline = Date.now() + timeoutMs;
      while (events.length < n) {
        if (ended) throw new Error(`watch ended after ${events.length} events, wanted ${n}`);
        if (Date.now() > deadline) throw new Error(`timed out with ${events.length} events, wanted ${n}: ${JSON.stringify(events.map((e) => e.type))}`);
        await new Promise<void>((r) => { waiters.push(r); setTimeout(r, 100); });
      }
      return events;
    },
    async close() {
      ctrl.abort();
      await done;
    },
  };
}

/** Polls `what` until it answers something (not undefined); throws after `timeoutMs`. */
export async function until<T>(what: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await what();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}
