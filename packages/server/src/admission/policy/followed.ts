/**
 * The objects of one resource as this replica's watch cache holds them, decoded again only
 * when the set changed: admission reads its configuration (policies, bindings) on every write.
 */
import type { Store } from '../../registry/store.js';
import type { KubeObject } from '../../registry/types.js';

export class FollowedObjects<T extends KubeObject = KubeObject> {
  private signature = '';
  private objects: T[] = [];

  constructor(private readonly store: () => Store | undefined) {}

  /** Whether the cache holds any (false while it is not live). */
  any(): boolean {
    const cacher = this.store()?.cacher;
    return cacher?.live === true && cacher.current(false).tree.size > 0;
  }

  /**
   * The objects. A change adds a revision higher than any before it, so the count and the sum
   * of the revisions identify the set: a write raises the sum, a delete lowers the count, and
   * a delete plus a create raises the sum.
   */
  list(): T[] {
    const cacher = this.store()?.cacher;
    if (!cacher?.live) return [];
    const tree = cacher.current(false).tree;
    let sum = 0;
    tree.forEach((o) => void (sum += o.revision));
    const signature = `${tree.size}:${sum}`;
    if (signature !== this.signature) {
      const objects: T[] = [];
      tree.forEach((o) => void objects.push(o.object as T));
      this.objects = objects;
      this.signature = signature;
    }
    return this.objects;
  }
}
