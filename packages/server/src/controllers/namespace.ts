/**
 * Namespace finalization: once a namespace is Terminating, delete everything in it, then
 * drop the `kubernetes` finalizer so the namespace itself is removed. Idempotent, so any
 * replica may run it; it retries while content (e.g. objects held by finalizers) remains.
 */
import { isStorageError } from '@windlass/storage';
import { decodeKeyValue, encodeForStorage } from '../registry/codec.js';
import type { Store } from '../registry/store.js';
import type { KubeObject } from '../registry/types.js';

const retryMs = 1000;

export class NamespaceController {
  private running = new Set<string>();
  private timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(private namespaces: Store, private namespaced: () => Store[]) {}

  /** Finalizes every namespace that is already terminating (after a restart, or another replica's delete). */
  async resync(): Promise<void> {
    const res = await this.namespaces.storage.range(this.namespaces.resourcePrefix, { prefix: true });
    for (const kv of res.items) {
      const ns = decodeKeyValue(kv);
      if (ns.metadata.deletionTimestamp) this.enqueue(ns.metadata.name!);
    }
  }

  enqueue(name: string): void {
    if (this.stopped || this.running.has(name)) return;
    this.running.add(name);
    void this.finalize(name).then((done) => {
      this.running.delete(name);
      if (!done) this.later(name);
    }, (err) => {
      this.running.delete(name);
      console.error(`namespace ${name}: finalization failed, will retry:`, err);
      this.later(name);
    });
  }

  private later(name: string): void {
    if (this.stopped) return;
    const t = setTimeout(() => { this.timers.delete(t); this.enqueue(name); }, retryMs);
    t.unref();
    this.timers.add(t);
  }

  /** Returns true when the namespace is gone (or no longer needs this controller). */
  private async finalize(name: string): Promise<boolean> {
    let remaining = 0;
    for (const store of this.namespaced()) {
      const prefix = store.collectionPrefix(name);
      const res = await store.storage.range(prefix, { prefix: true });
      for (const kv of res.items) {
        const obj = decodeKeyValue(kv);
        try {
          // kube's namespace deleter deletes with Background: dependents are the collector's, not finalizers'.
          const { removed } = await store.delete(name, obj.metadata.name!, { dryRun: false, propagationPolicy: 'Background' });
          if (!removed) remaining++;
        } catch (err) {
          if ((err as { code?: number }).code !== 404) throw err;
        }
      }
    }
    if (remaining > 0) return false;
    return this.removeFinalizer(name);
  }

  private async removeFinalizer(name: string): Promise<boolean> {
    const key = this.namespaces.objectKey('', name);
    for (;;) {
      const kv = await this.namespaces.storage.get(key);
      if (!kv) return true;
      const ns = decodeKeyValue(kv) as KubeObject & { spec?: { finalizers?: string[] } };
      if (!ns.metadata.deletionTimestamp) return true;
      const finalizers = (ns.spec?.finalizers ?? []).filter((f) => f !== 'kubernetes');
      try {
        if (finalizers.length === 0 && (ns.metadata.finalizers ?? []).length === 0) {
          await this.namespaces.storage.delete(key, kv.modRevision);
          return true;
        }
        ns.spec = { ...(ns.spec ?? {}), finalizers };
        await this.namespaces.storage.update(key, encodeForStorage(ns), kv.modRevision);
        return (ns.metadata.finalizers ?? []).length === 0 && finalizers.length === 0;
      } catch (err) {
        if (!isStorageError(err, 'Conflict')) throw err;
      }
    }
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
  }
}
