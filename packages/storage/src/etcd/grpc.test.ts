import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { EtcdStorage } from '../etcd.js';
import { startEtcd, type EtcdServer } from '../testing/etcd.js';
import { freePort } from '../testing/ports.js';
import { isStorageError } from '../types.js';
import { bindInScope, EtcdGrpcClient, GrpcCallError } from './grpc.js';
import { decodeRangeResponse, encodeRange } from './kvmessages.js';

let etcd: EtcdServer;
beforeAll(async () => {
  etcd = await startEtcd();
}, 60_000);
afterAll(() => etcd?.stop());

/**
 * A TCP proxy to etcd that can cut every connection once etcd has answered, before the
 * answer reaches the client: the client then cannot know whether its call was applied.
 */
async function cuttingProxy(target: string): Promise<{ url: string; cutAfterAnswer(): void; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  let cut = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    upstream.on('data', (d) => {
      // HTTP/2 SETTINGS and PINGs before the call pass; once cutting, the first answer bytes end it.
      if (cut && d.length > 40) {
        client.destroy();
        upstream.destroy();
      } else client.write(d);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${addr.port}`,
    cutAfterAnswer: () => {
      cut = true;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A TCP proxy to etcd on a fixed port that can stop listening (connections refused) and start again. */
async function switchableProxy(target: string): Promise<{ url: string; down(): Promise<void>; up(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  const listenPort = await freePort();
  const up = () => new Promise<void>((resolve) => server.listen(listenPort, '127.0.0.1', resolve));
  await up();
  return {
    url: `http://127.0.0.1:${listenPort}`,
    // Once down, the client has seen its connection end: a call started then is refused, not lost.
    down: async () => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      await new Promise((resolve) => server.close(resolve));
      await new Promise((resolve) => setTimeout(resolve, 100));
    },
    up,
  };
}

test('while etcd cannot be reached, reads and writes wait for it (kube\'s etcd client: WaitForReady) and go through once it is back', async () => {
  const proxy = await switchableProxy(etcd.endpoints[0]);
  const s = await EtcdStorage.connect({ endpoints: [proxy.url] });
  try {
    await s.create('/wait/warm', Buffer.from('w'));
    await proxy.down();
    let settled = false;
    const write = s.create('/wait/a', Buffer.from('v'));
    const read = s.get('/wait/warm');
    void Promise.allSettled([write, read]).then(() => { settled = true; });
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(settled).toBe(false);
    await proxy.up();
    const created = await write;
    expect(created.value.toString()).toBe('v');
    expect((await read)?.value.toString()).toBe('w');
    // Sent once: the key's first and only version.
    expect((await s.get('/wait/a'))?.modRevision).toBe(created.createRevision);
  } finally {
    await s.close();
    await proxy.down().catch(() => undefined);
  }
});

test('a call that waited the whole unavailableWaitMs for etcd fails Unavailable, and was never sent', async () => {
  const proxy = await switchableProxy(etcd.endpoints[0]);
  const s = await EtcdStorage.connect({ endpoints: [proxy.url], unavailableWaitMs: 400 });
  try {
    await proxy.down();
    const started = Date.now();
    const err = await s.create('/wait/never', Buffer.from('v')).catch((e: unknown) => e);
    expect(isStorageError(err, 'Unavailable')).toBe(true);
    expect((err as { cause?: GrpcCallError }).cause?.unsent).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
  } finally {
    await s.close();
  }
  // A read given its own bound (a health check's) gives up then, whatever the store's default.
  await proxy.up();
  const patient = await EtcdStorage.connect({ endpoints: [proxy.url] });
  try {
    await proxy.down();
    const started = Date.now();
    const err = await patient.currentRevision({ waitMs: 300 }).catch((e: unknown) => e);
    expect(isStorageError(err, 'Unavailable')).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
  } finally {
    await patient.close();
  }
  const check = await EtcdStorage.connect({ endpoints: etcd.endpoints });
  try {
    expect(await check.get('/wait/never')).toBeNull();
  } finally {
    await check.close();
  }
});

test('a member nobody listens on is skipped: reads and writes go to the next one', async () => {
  const dead = `http://127.0.0.1:${await freePort()}`;
  // Both orders, since the client starts at a random member.
  for (const endpoints of [[dead, ...etcd.endpoints], [...etcd.endpoints, dead]]) {
    const s = await EtcdStorage.connect({ endpoints });
    try {
      for (let i = 0; i < 10; i++) {
        const key = `/skip/${endpoints[0] === dead ? 'a' : 'b'}/${i}`;
        const created = await s.create(key, Buffer.from(`v${i}`));
        expect((await s.get(key))?.modRevision).toBe(created.modRevision);
      }
    } finally {
      await s.close();
    }
  }
});

test('a call that never reached a member is marked unsent; with no member left it fails fast', async () => {
  const client = new EtcdGrpcClient([`http://127.0.0.1:${await freePort()}`]);
  try {
    const err = await client.unary('/etcdserverpb.KV/Range', encodeRange({ key: Buffer.from('a') }), decodeRangeResponse).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GrpcCallError);
    expect(err).toMatchObject({ code: 14, unsent: true });
  } finally {
    client.close();
  }
});

test('a write whose answer was lost with its connection is Unavailable, not re-sent, and was applied', async () => {
  const proxy = await cuttingProxy(etcd.endpoints[0]);
  const s = await EtcdStorage.connect({ endpoints: [proxy.url] });
  try {
    await s.create('/cut/warm', Buffer.from('w'));
    proxy.cutAfterAnswer();
    const err = await s.create('/cut/a', Buffer.from('v')).catch((e: unknown) => e);
    expect(isStorageError(err, 'Unavailable')).toBe(true);
    expect((err as GrpcCallError & { cause?: GrpcCallError }).cause?.unsent).toBe(false);
  } finally {
    await s.close();
    await proxy.close();
  }
  // Sent once and applied once: a re-sent create would have failed its compare (KeyExists).
  const check = await EtcdStorage.connect({ endpoints: etcd.endpoints });
  try {
    const kv = await check.get('/cut/a');
    expect(kv?.value.toString()).toBe('v');
    expect(kv?.createRevision).toBe(kv?.modRevision);
  } finally {
    await check.close();
  }
});

test("the lean bind of a call's connect callback runs it in the resource's async scope with its this and arguments; Node's bind is restored after the call starts", async () => {
  const nodeBind = AsyncResource.prototype.bind;
  // The lean bind runs the function in the resource's scope, with the caller's `this` and arguments.
  const als = new AsyncLocalStorage<string>();
  const resource = als.run('at creation', () => new AsyncResource('Test'));
  const bound = bindInScope.call(resource, function (this: unknown, ...args: unknown[]) { return [als.getStore(), this, ...args]; });
  expect(als.run('at call', () => bound.call('self', 1, 2))).toEqual(['at creation', 'self', 1, 2]);
  const withThis = bindInScope.call(resource, function (this: unknown) { return [als.getStore(), this]; }, 'given');
  expect(withThis()).toEqual(['at creation', 'given']);
  // A call's callbacks see the context it was made in; Node's bind is back once the call started.
  const s = await EtcdStorage.connect({ endpoints: etcd.endpoints });
  try {
    const seen = await als.run('request', () => s.create('/bind/a', Buffer.from('1')).then(() => als.getStore()));
    expect(seen).toBe('request');
    expect(AsyncResource.prototype.bind).toBe(nodeBind);
  } finally {
    await s.close();
  }
});

test('etcd errors come back with their gRPC code and etcd message', async () => {
  const s = await EtcdStorage.connect({ endpoints: etcd.endpoints });
  try {
    const { modRevision } = await s.create('/errors/a', Buffer.from('1'));
    await s.update('/errors/a', Buffer.from('2'), modRevision);
    await s.compact(modRevision + 1);
    const err = await s.range('/errors/', { prefix: true, revision: modRevision }).catch((e: unknown) => e);
    expect(isStorageError(err, 'Compacted')).toBe(true);
    const future = await s.range('/errors/', { prefix: true, revision: modRevision + 1000 }).catch((e: unknown) => e);
    expect(isStorageError(future, 'FutureRevision')).toBe(true);
    expect(((future as { cause?: GrpcCallError }).cause as GrpcCallError).code).toBe(11);
  } finally {
    await s.close();
  }
});

test('watch messages are reassembled across HTTP/2 frames and split when several share one', async () => {
  const s = await EtcdStorage.connect({ endpoints: etcd.endpoints });
  const seen: { key: string; size: number; revision: number }[] = [];
  let done!: () => void;
  let failed!: (err: Error) => void;
  const all = new Promise<void>((resolve, reject) => ((done = resolve), (failed = reject)));
  try {
    const big = Buffer.alloc(300_000, 'b');
    const w = await s.watch('/frames/', 0, {
      events: (events) => {
        for (const e of events) seen.push({ key: e.key, size: e.value.length, revision: e.revision });
        if (seen.length === 51) done();
      },
      error: (err) => failed(err),
    });
    // One value spanning ~19 frames of 16 KiB, then 50 small writes whose responses arrive together.
    await s.create('/frames/big', big);
    await Promise.all(Array.from({ length: 50 }, (_, i) => s.create(`/frames/small-${String(i).padStart(2, '0')}`, Buffer.from(`v${i}`))));
    await all;
    w.close();
    expect(seen[0]).toMatchObject({ key: '/frames/big', size: 300_000 });
    expect(seen.slice(1).map((e) => e.key).sort()).toEqual(Array.from({ length: 50 }, (_, i) => `/frames/small-${String(i).padStart(2, '0')}`));
    // Revisions strictly increase, as etcd sent them.
    expect(seen.every((e, i) => i === 0 || e.revision > seen[i - 1].revision)).toBe(true);
  } finally {
    await s.close();
  }
});

test('a member that stops answering (frozen, its connection still open) fails the calls waiting on it once a keepalive ping goes unanswered', async () => {
  const frozen = await startEtcd();
  const client = new EtcdGrpcClient(frozen.endpoints, {}, { intervalMs: 200, timeoutMs: 300 });
  const pid = frozen.pid;
  try {
    await client.unary('/etcdserverpb.KV/Range', encodeRange({ key: Buffer.from('a') }), decodeRangeResponse);
    process.kill(pid, 'SIGSTOP');
    // kill() returns once the signal is queued; a thread of etcd's may still answer until it stops.
    await untilStopped(pid);
    const started = Date.now();
    const err = await client.unary('/etcdserverpb.KV/Range', encodeRange({ key: Buffer.from('a') }), decodeRangeResponse).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GrpcCallError);
    expect(err).toMatchObject({ code: 14, unsent: false });
    expect((err as Error).message).toContain('keepalive ping');
    expect(Date.now() - started).toBeLessThan(5000);
  } finally {
    process.kill(pid, 'SIGCONT');
    client.close();
    await frozen.stop();
  }
});

/** Until every thread of `pid` is stopped (state T in /proc), for at most 5 s. */
async function untilStopped(pid: number): Promise<void> {
  const deadline = Date.now() + 5000;
  const stopped = (): boolean => readdirSync(`/proc/${pid}/task`).every((tid) => {
    try {
      // The state follows the command name in parentheses, which may itself hold spaces.
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      return /^[Tt]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
    } catch {
      return true; // the thread exited
    }
  });
  while (!stopped()) {
    if (Date.now() > deadline) throw new Error(`process ${pid} did not stop`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
