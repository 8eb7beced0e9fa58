/**
 * The addon against the real allocator and the real V8, each case in a child process of its
 * own (a clean heap; --expose-gc where the test frees Buffers itself). Many Buffers freed
 * around a few that stay alive leave glibc's arenas full of free pages it keeps; garbage a
 * burst leaves behind stays in V8's heap until something collects it. Both are given back only
 * once the process is idle.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { allocatorFreeBytes, collectGarbage, memoryReleaseAvailable, trimAllocator } from './index.cjs';

const entry = join(__dirname, 'index.cjs');
const MB = 1024 * 1024;

/** Runs `body` (async; sees the package as `m`, `rss()` and `burst()`) in a new Node; its result. */
function child(body: string, flags: string[] = []): Record<string, number | boolean> {
  const script = `
    const m = require(${JSON.stringify(entry)});
    const rss = () => process.memoryUsage.rss();
    const pinned = [];
    // ~80 MB of 2 KB Buffers, one in 16 kept: each keeps its part of the arena in use.
    const burst = () => {
      let all = [];
      for (let i = 0; i < 40000; i++) all.push(Buffer.alloc(2000, i & 255));
      for (let i = 0; i < all.length; i += 16) pinned.push(all[i]);
      all = null;
    };
    (async () => { ${body} })().then((r) => console.log(JSON.stringify(r)));
  `;
  const r = spawnSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

describe('@windlass/memory', () => {
  test('is available on this machine (glibc, addon built)', () => {
    // Linux with glibc is what Windlass ships on (the image is Debian): a missing addon there is a build fault.
    expect(memoryReleaseAvailable()).toBe(true);
    expect(allocatorFreeBytes()).toBeGreaterThanOrEqual(0);
    expect(typeof trimAllocator()).toBe('boolean');
  });

  test('trimAllocator gives the free pages of a fragmented heap back to the system', () => {
    const r = child(`
      burst();
      globalThis.gc();
      globalThis.gc();
      const free = m.allocatorFreeBytes(), before = rss();
      const released = m.trimAllocator();
      return { free, before, after: rss(), released };
    `, ['--expose-gc']);
    expect(r.free as number).toBeGreaterThan(40 * MB);
    expect(r.released).toBe(true);
    expect((r.before as number) - (r.after as number)).toBeGreaterThan(30 * MB);
  });

  test("collectGarbage frees a burst's garbage that nothing else would collect", () => {
    // No --expose-gc and no allocation after the burst: without the call, V8 keeps it all.
    const r = child(`
      burst();
      await new Promise((res) => setTimeout(res, 200));
      const before = process.memoryUsage();
      m.collectGarbage();
      const after = process.memoryUsage();
      return { externalBefore: before.external, externalAfter: after.external };
    `);
    // Of ~80 MB of Buffers, one in 16 is live.
    expect(r.externalBefore as number).toBeGreaterThan(70 * MB);
    expect(r.externalAfter as number).toBeLessThan(15 * MB);
  });

  test('startMemoryRelease collects and trims once the process goes idle after a burst, and stops when asked', () => {
    const r = child(`
      const stop = m.startMemoryRelease({ intervalMs: 100, idleCpuShare: 0.2, minGrowthBytes: 16 * 1024 * 1024 });
      burst();
      const before = rss();
      await new Promise((res) => setTimeout(res, 600));
      const after = rss();
      stop();
      // Stopped: a second burst stays.
      burst();
      const again = rss();
      await new Promise((res) => setTimeout(res, 600));
      return { before, after, again, later: rss() };
    `);
    expect((r.before as number) - (r.after as number)).toBeGreaterThan(40 * MB);
    expect((r.again as number) - (r.later as number)).toBeLessThan(10 * MB);
  });

  test('startMemoryRelease leaves a busy process alone, and releases once it goes idle', () => {
    const r = child(`
      const stop = m.startMemoryRelease({ intervalMs: 100, idleCpuShare: 0.2, minGrowthBytes: 16 * 1024 * 1024 });
      burst();
      const before = rss();
      // Busy: 20 ms of CPU at a time, yielding to the event loop (so the timer runs) in between.
      const until = Date.now() + 600;
      while (Date.now() < until) {
        const t = Date.now() + 20;
        while (Date.now() < t);
        await new Promise((res) => setImmediate(res));
      }
      const busy = rss();
      await new Promise((res) => setTimeout(res, 600));
      const idle = rss();
      stop();
      return { before, busy, idle };
    `);
    expect((r.before as number) - (r.busy as number)).toBeLessThan(10 * MB);
    expect((r.before as number) - (r.idle as number)).toBeGreaterThan(40 * MB);
  });
});
