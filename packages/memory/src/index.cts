/**
 * Gives back to the system the memory a burst of requests leaves behind. Measured after 10k
 * creates on etcd and 40 s idle: V8 had often not collected the burst's garbage at all (heap
 * 64 MB used of which 33 MB live, and 61 MB of Buffers of which 27 MB live), and glibc held
 * 76 MB in its main arena with 25 MB in use, plus 14 MB in a thread's arena with 0.1 MB in
 * use. Both need calls Node does not expose, hence a small addon; where it is missing (not
 * built, not glibc) everything here is a no-op.
 */
interface Binding {
  trimAllocator(): boolean;
  allocatorFreeBytes(): number;
  collectGarbage(): void;
}

let binding: Binding | null | undefined;

function addon(): Binding | null {
  if (binding === undefined) {
    try {
      binding = require('../build/Release/windlass_memory.node') as Binding;
    } catch {
      binding = null;
    }
  }
  return binding;
}

/** Whether the addon is here and the allocator is glibc's. */
export function memoryReleaseAvailable(): boolean {
  const b = addon();
  return b !== null && b.allocatorFreeBytes() >= 0;
}

/** Bytes in the allocator's free chunks (given back to the system or not); undefined when unknown. */
export function allocatorFreeBytes(): number | undefined {
  const n = addon()?.allocatorFreeBytes() ?? -1;
  return n >= 0 ? n : undefined;
}

/** malloc_trim(0): true when some memory was given back. */
export function trimAllocator(): boolean {
  return addon()?.trimAllocator() ?? false;
}

/** A full, memory-reducing garbage collection, on this thread, now (tens of ms at ~100 MB of heap). */
export function collectGarbage(): void {
  addon()?.collectGarbage();
}

export interface MemoryReleaseOptions {
  /** How often the process is looked at. */
  intervalMs?: number;
  /** Below this share of one core over the last interval, the process counts as idle. */
  idleCpuShare?: number;
  /** Collect when idle and RSS has grown by this much since the lowest RSS after a collection. */
  minGrowthBytes?: number;
  /** Trim when idle and the allocator's free chunks have moved by this much since the last trim. */
  minFreeChangeBytes?: number;
}

/**
 * Every intervalMs, when the process has been idle over the interval (CPU below idleCpuShare
 * of a core):
 * - if RSS grew by minGrowthBytes since the last collection: collect garbage, then trim;
 * - otherwise, if the allocator's free chunks moved by minFreeChangeBytes since the last trim:
 *   trim. A trim keeps free chunks free (only their pages go back), so the figure stays high
 *   after one: comparing with it, not with zero, keeps an idle process from walking its arenas
 *   every interval.
 * Nothing while busy: the collection stops the event loop for tens of ms (58 ms at 10k cached
 * objects, measured) and a trim for up to ~9 ms at ~200 MB of arenas, which a busy server's
 * latency would carry, while the memory given back would be taken again at once. The timer does
 * not keep the process alive. Returns the stop function.
 */
export function startMemoryRelease(o: MemoryReleaseOptions = {}): () => void {
  const intervalMs = o.intervalMs ?? 10_000;
  const idleCpuShare = o.idleCpuShare ?? 0.02;
  const minGrowth = o.minGrowthBytes ?? 16 * 1024 * 1024;
  const minFreeChange = o.minFreeChangeBytes ?? 16 * 1024 * 1024;
  if (!memoryReleaseAvailable()) return () => undefined;
  let cpu = process.cpuUsage();
  let lowRss = process.memoryUsage.rss();
  let freeAfterTrim = allocatorFreeBytes() ?? 0;
  const timer = setInterval(() => {
    const used = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    const rss = process.memoryUsage.rss();
    lowRss = Math.min(lowRss, rss);
    if ((used.user + used.system) / 1000 > intervalMs * idleCpuShare) return;
    if (rss - lowRss >= minGrowth) {
      collectGarbage();
      trimAllocator();
      lowRss = process.memoryUsage.rss();
    } else if (Math.abs((allocatorFreeBytes() ?? 0) - freeAfterTrim) >= minFreeChange) {
      trimAllocator();
    } else return;
    freeAfterTrim = allocatorFreeBytes() ?? 0;
    // This tick's own work is not the next interval's activity.
    cpu = process.cpuUsage();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
