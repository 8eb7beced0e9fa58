/**
 * kube-controller-manager's ValidatingAdmissionPolicy status controller, in process
 * (pkg/controller/validatingadmissionpolicystatus): a policy whose generation its status has not
 * observed is type-checked (../admission/policy/typechecking.ts) and gets
 * `status.observedGeneration` and `status.typeChecking` with the warnings, `{}` when none.
 */
import { StoreFollower } from './follower.js';
import { checkPolicy, type TypeResolver } from '../admission/policy/typechecking.js';
import type { Store } from '../registry/store.js';
import type { AdmissionLookup, KubeObject } from '../registry/types.js';
import type { Json } from '../registry/kinds/networking/util.js';

const observed = (p: KubeObject) => Number((p.status as Json | undefined)?.observedGeneration ?? 0);
const stale = (p: KubeObject) => (p.metadata.generation ?? 0) > observed(p);

export class PolicyStatusController {
  private readonly follower: StoreFollower;
  private readonly pending = new Map<string, KubeObject>();
  private running?: Promise<void>;
  private stopped = false;

  constructor(policies: Store, private readonly writer: () => AdmissionLookup | undefined, private readonly types: () => Promise<TypeResolver>) {
    this.follower = new StoreFollower(() => [policies], {
      initial: true,
      event: (_store, type, o) => {
        if (type !== 'DELETED' && stale(o.object)) this.enqueue(o.object);
      },
    });
  }

  start(): void {
    this.follower.start();
  }

  stop(): void {
    this.stopped = true;
    this.follower.stop();
  }

  /** Resolves once no policy waits to be checked (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private enqueue(policy: KubeObject): void {
    this.pending.set(policy.metadata.name ?? '', policy);
    if (!this.running) this.running = this.drain().finally(() => { this.running = undefined; });
  }

  private async drain(): Promise<void> {
    while (this.pending.size > 0 && !this.stopped) {
      const [name, policy] = this.pending.entries().next().value as [string, KubeObject];
      this.pending.delete(name);
      try {
        await this.sync(policy);
      } catch (err) {
        if (!this.stopped && (err as { code?: number }).code !== 404) console.error(`validatingadmissionpolicy-status-controller: ${name}:`, err);
      }
    }
  }

  private async sync(policy: KubeObject): Promise<void> {
    const generation = policy.metadata.generation ?? 0;
    const warnings = checkPolicy(policy as Json, await this.types());
    const policies = this.writer();
    if (!policies?.updateStatus) return;
    await policies.updateStatus('', policy.metadata.name ?? '', (current) => {
      // A newer generation is checked on its own event; one already observed needs nothing.
      if ((current.metadata.generation ?? 0) !== generation || !stale(current)) return current;
      current.status = { ...(current.status as Json | undefined), observedGeneration: generation, typeChecking: warnings.length > 0 ? { expressionWarnings: warnings } : {} };
      return current;
    });
  }
}
