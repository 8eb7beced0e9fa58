/**
 * The APIServices kube-apiserver 1.35 registers for what it serves itself (kube-aggregator's
 * autoregister controller, fed by kube's apiServicesToRegister and crdregistration controller):
 *
 * - one per built-in group version, `<version>.<group>` (`v1.` for the core group, `v1.apps`),
 *   with the group and version priorities of kube's table, labelled
 *   `kube-aggregator.kubernetes.io/automanaged: onstart`: created if missing and brought back to
 *   the table once per start, then left to whoever edits it;
 * - one per served version of every CRD's group, groupPriorityMinimum 1000 and versionPriority
 *   100, labelled `automanaged: true`: created, kept and deleted as CRDs come and go.
 *
 * APIServices without the label (those users create, for aggregated servers behind a Service)
 * are never touched; the aggregation layer (aggregator/) serves those.
 */
import { cachedObjects, StoreFollower } from './follower.js';
import type { Store } from '../registry/store.js';
import type { KubeObject } from '../registry/types.js';
import { semanticEqual } from '../registry/semanticequal.js';

export const automanagedLabel = 'kube-aggregator.kubernetes.io/automanaged';
const onStart = 'onstart';
const continuously = 'true';

export interface APIServicePriority { group: number; version: number }

/**
 * kube-apiserver's apiVersionPriorities merged over DefaultGenericAPIServicePriorities, for the
 * group versions Windlass serves (kube lists beta and alpha versions too; they are not served).
 * Keyed by group version as discovery writes it (`v1` is the core group).
 */
export const apiServicePriorities: Readonly<Record<string, APIServicePriority>> = {
  'v1': { group: 18000, version: 1 },
  'apps/v1': { group: 17800, version: 15 },
  'events.k8s.io/v1': { group: 17750, version: 15 },
  'authentication.k8s.io/v1': { group: 17700, version: 15 },
  'authorization.k8s.io/v1': { group: 17600, version: 15 },
  'autoscaling/v1': { group: 17500, version: 15 },
  'autoscaling/v2': { group: 17500, version: 30 },
  'batch/v1': { group: 17400, version: 15 },
  'certificates.k8s.io/v1': { group: 17300, version: 15 },
  'networking.k8s.io/v1': { group: 17200, version: 15 },
  'policy/v1': { group: 17100, version: 15 },
  'rbac.authorization.k8s.io/v1': { group: 17000, version: 15 },
  'storage.k8s.io/v1': { group: 16800, version: 15 },
  'apiextensions.k8s.io/v1': { group: 16700, version: 15 },
  'admissionregistration.k8s.io/v1': { group: 16700, version: 15 },
  'scheduling.k8s.io/v1': { group: 16600, version: 15 },
  'coordination.k8s.io/v1': { group: 16500, version: 15 },
  'node.k8s.io/v1': { group: 16300, version: 15 },
  'discovery.k8s.io/v1': { group: 16200, version: 15 },
  // GA in 1.34, above its betas (v1beta2 15, v1beta1 9).
  'resource.k8s.io/v1': { group: 16200, version: 21 },
  'flowcontrol.apiserver.k8s.io/v1': { group: 16100, version: 21 },
};

/** kube's crdregistration: CRDs sort below every built-in group; versions among themselves by kube's version order. */
const crdPriority: APIServicePriority = { group: 1000, version: 100 };

type APIService = KubeObject & { spec?: Record<string, unknown> };
type CRD = KubeObject & { spec?: { group?: string; versions?: { name?: string; served?: boolean }[] } };

/** `<version>.<group>` for `<group>/<version>` (`v1.` for the core group's `v1`). */
export function apiServiceName(groupVersion: string): string {
  const slash = groupVersion.indexOf('/');
  return slash < 0 ? `${groupVersion}.` : `${groupVersion.slice(slash + 1)}.${groupVersion.slice(0, slash)}`;
}

function apiServiceFor(group: string, version: string, p: APIServicePriority, label: string): APIService {
  return {
    apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService',
    metadata: { name: `${version}.${group}`, labels: { [automanagedLabel]: label } },
    // As stored: Go omits the core group's empty name.
    spec: { ...(group ? { group } : {}), version, groupPriorityMinimum: p.group, versionPriority: p.version },
  };
}

const automanaged = (s: APIService | undefined) => s?.metadata.labels?.[automanagedLabel];
const isCode = (err: unknown, code: number) => (err as { code?: number }).code === code;

export interface AutoRegisterOptions {
  apiServices: Store;
  crds?: Store;
  /** The built-in group versions this replica serves (`v1`, `apps/v1`, …). */
  builtinGroupVersions: string[];
}

export class APIServiceAutoRegistration {
  private readonly builtin = new Map<string, APIService>();
  /** Names synced successfully once since start (kube's syncedSuccessfully): `onstart` ones are not synced again. */
  private readonly synced = new Set<string>();
  /** APIServices that existed when the controller started (kube's apiServicesAtStart). */
  private readonly atStart = new Set<string>();
  private readonly follower: StoreFollower;
  private retryTimer?: NodeJS.Timeout;
  private pending = false;
  private running?: Promise<void>;
  private stopped = false;
  private lastError = '';

  constructor(private readonly o: AutoRegisterOptions) {
    this.follower = new StoreFollower(() => [o.apiServices, o.crds], { event: () => this.enqueue(), attached: () => this.enqueue() });
    for (const gv of o.builtinGroupVersions) {
      const p = apiServicePriorities[gv];
      // kube's makeAPIService: a group version missing from the table gets no APIService.
      if (!p) continue;
      const slash = gv.indexOf('/');
      const [group, version] = slash < 0 ? ['', gv] : [gv.slice(0, slash), gv.slice(slash + 1)];
      const s = apiServiceFor(group, version, p, onStart);
      this.builtin.set(s.metadata.name!, s);
    }
  }

  /** Follows the APIService and CRD caches (both live: the server starts controllers once caches are ready) and syncs now. */
  start(): void {
    for (const s of this.all(this.o.apiServices)) this.atStart.add(s.metadata.name!);
    this.follower.start();
  }

  stop(): void {
    this.stopped = true;
    this.follower.stop();
    clearTimeout(this.retryTimer);
  }

  /** Resolves once no sync is under way or queued (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private enqueue(): void {
    this.pending = true;
    if (!this.running) this.running = this.drain().finally(() => { this.running = undefined; });
  }

  private async drain(): Promise<void> {
    while (this.pending && !this.stopped) {
      this.pending = false;
      try {
        await this.syncAll();
        this.lastError = '';
      } catch (err) {
        const message = (err as Error).message;
        if (message !== this.lastError && !this.stopped) console.error(`autoregister: ${message}`);
        this.lastError = message;
        clearTimeout(this.retryTimer);
        this.retryTimer = setTimeout(() => this.enqueue(), 1000);
        this.retryTimer.unref();
      }
    }
  }

  private all(store: Store | undefined): KubeObject[] {
    return [...cachedObjects(store)];
  }

  /** kube's crdregistration handleVersionUpdate over every CRD: each served version of each group, once. */
  private crdDesired(): Map<string, APIService> {
    const desired = new Map<string, APIService>();
    for (const crd of this.all(this.o.crds) as CRD[]) {
      const group = crd.spec?.group;
      if (!group) continue;
      for (const v of crd.spec?.versions ?? []) {
        if (!v.served || !v.name) continue;
        const s = apiServiceFor(group, v.name, crdPriority, continuously);
        if (!this.builtin.has(s.metadata.name!)) desired.set(s.metadata.name!, s);
      }
    }
    return desired;
  }

  private async syncAll(): Promise<void> {
    const crd = this.crdDesired();
    const current = new Map((this.all(this.o.apiServices) as APIService[]).map((s) => [s.metadata.name!, s]));
    const names = new Set([...this.builtin.keys(), ...crd.keys(), ...current.keys()]);
    const failures: Error[] = [];
    await Promise.all([...names].map(async (name) => {
      try {
        await this.check(name, this.builtin.get(name) ?? crd.get(name), current.get(name));
        this.synced.add(name);
      } catch (err) {
        failures.push(err as Error);
      }
    }));
    if (failures.length > 0) throw failures[0];
  }

  /** kube's checkAPIService: its table of desired (none, on start, always) against current. */
  private async check(name: string, desired: APIService | undefined, current: APIService | undefined): Promise<void> {
    const store = this.o.apiServices;
    if (!current && !desired) return;
    if (automanaged(desired) === onStart && this.synced.has(name)) return;
    if (!current) {
      try {
        await store.create('', structuredClone(desired!), { dryRun: false });
      } catch (err) {
        // Another replica created it meanwhile; its event brings us back.
        if (!isCode(err, 409)) throw err;
      }
      return;
    }
    const managed = automanaged(current);
    if (managed !== onStart && managed !== continuously) return;
    if (managed === onStart && (!this.atStart.has(name) || this.synced.has(name))) return;
    try {
      if (!desired) {
        await store.delete('', name, { dryRun: false, preconditions: { uid: current.metadata.uid } });
        return;
      }
      if (semanticEqual(current.spec, desired.spec)) return;
      const next = structuredClone(current);
      next.spec = structuredClone(desired.spec);
      await store.update('', name, next, { dryRun: false });
    } catch (err) {
      // Deleted or changed meanwhile: the change's event syncs it again.
      if (!isCode(err, 404) && !isCode(err, 409)) throw err;
    }
  }
}
