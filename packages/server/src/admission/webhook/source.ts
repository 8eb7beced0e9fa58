/**
 * The webhook configurations as admission reads them (kube's mutatingWebhookConfigurationManager
 * and validatingWebhookConfigurationManager): followed through this replica's watch caches, the
 * configurations in name order and each one's webhooks in order, rebuilt only after one of them
 * changed. Until the cache is live (start, a restart after compaction) nothing is configured, so
 * writes pay nothing then, as they pay nothing while no configuration exists.
 */
import type { Cacher } from '../../cacher/cacher.js';
import type { KubeObject } from '../../registry/types.js';
import type { Webhook, WebhookAccessor } from './types.js';

export class WebhookSource {
  private stamp: unknown[] = [];
  private hooks: WebhookAccessor[] = [];

  private resolved?: Cacher;

  constructor(private readonly find: () => Cacher | undefined, private readonly mutating: boolean) {}

  /** The configurations' watch cache, looked up once: built-in resources keep theirs for the server's life. */
  private cacher(): Cacher | undefined {
    return (this.resolved ??= this.find());
  }

  /** Whether any configuration exists (cheap: asked on every write). */
  any(): boolean {
    const c = this.cacher();
    return c?.live === true && c.cache.tree.size > 0;
  }

  webhooks(): WebhookAccessor[] {
    const c = this.cacher();
    if (!c?.live) return [];
    const tree = c.cache.tree;
    if (this.stamp[0] !== tree || this.stamp[1] !== c.cache.lastEventRevision) {
      const hooks: WebhookAccessor[] = [];
      // Keys are the registry prefix plus the name: the tree's order is kube's sort by name.
      tree.forEach((cached) => {
        const config = cached.object as KubeObject & { webhooks?: Webhook[] };
        const name = config.metadata.name ?? '';
        (config.webhooks ?? []).forEach((webhook, i) => hooks.push({ uid: `${name}/${webhook.name}/${i}`, configurationName: name, webhook, mutating: this.mutating }));
      });
      this.hooks = hooks;
      this.stamp = [tree, c.cache.lastEventRevision];
    }
    return this.hooks;
  }
}
