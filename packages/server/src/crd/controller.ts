/**
 * What the apiextensions-apiserver runs beside its handler, in every replica: it follows the
 * CRDs through this replica's watch cache and
 *
 * - accepts names and establishes CRDs (naming and establishing controllers), writing
 *   NamesAccepted, Established and status.acceptedNames as kube does (any replica may write
 *   them; each write is a compare-and-swap and computes the same result);
 * - serves each CRD's versions once its names are accepted (kube's crdHandler serves a CRD
 *   whose NamesAccepted or Established is True; discovery and OpenAPI list it once Established);
 * - finalizes deleted CRDs (the customresourcecleanup finalizer controller): every custom
 *   resource is deleted, the Terminating condition says how it went, then the finalizer goes.
 *
 * Because every replica follows the same CRDs, a CRD created through one is served by all.
 */
import { failure, type StatusError } from '@windlass/machinery';
import { cachedObjects, StoreFollower } from '../controllers/follower.js';
import type { Store } from '../registry/store.js';
import type { KubeObject, ResourceDefinition } from '../registry/types.js';
import { parseListOptions } from '../registry/listoptions.js';
import { fieldManagerFor } from '../fieldmanager/forkind.js';
import { calculateNames, nowRFC3339, setCondition } from './naming.js';
import { crdResources } from './resources.js';
import type { ServiceResolver } from '../admission/webhook/client.js';
import { type CRD, cleanupFinalizer, condition, isConditionTrue } from './types.js';

/** What the controller needs of the server: adding and removing served resources, and their stores. */
export interface ResourceHost {
  addResources(defs: ResourceDefinition[]): void;
  removeResources(defs: ResourceDefinition[]): void;
  storeOf(def: ResourceDefinition): Store | undefined;
}

interface Served {
  fingerprint: string;
  definitions: ResourceDefinition[];
}

export class CRDController {
  private readonly follower: StoreFollower;
  private readonly served = new Map<string, Served>();
  private readonly queue = new Set<string>();
  private running?: Promise<void>;
  private stopped = false;
  /** Bumped whenever the served custom resources change (OpenAPI documents are rebuilt). */
  generation = 0;
  /** Reaches the services of conversion webhooks (set by the admission webhooks' stage, which resolves them too). */
  conversionResolver?: ServiceResolver;

  constructor(private readonly crds: Store, private readonly host: ResourceHost) {
    this.follower = new StoreFollower(() => [crds], {
      initial: true,
      event: (_store, _type, o) => this.enqueue(o.object.metadata.name ?? ''),
      // CRDs deleted while no watcher followed: stop serving them.
      attached: () => { for (const name of this.served.keys()) this.enqueue(name); },
    });
  }

  start(): void {
    this.follower.start();
  }

  stop(): void {
    this.stopped = true;
    this.follower.stop();
  }

  /** Every custom resource version this replica serves. */
  definitions(): ResourceDefinition[] {
    return [...this.served.values()].flatMap((s) => s.definitions);
  }

  /** Resolves once every queued CRD has been looked at (tests, and start-up before serving). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private enqueue(name: string): void {
    this.queue.add(name);
    if (!this.running) this.running = this.drain().finally(() => { this.running = undefined; });
  }

  private async drain(): Promise<void> {
    while (this.queue.size > 0 && !this.stopped) {
      const [name] = this.queue;
      this.queue.delete(name);
      try {
        await this.sync(name);
      } catch (err) {
        // Gone meanwhile (another replica finished it): its removal event brings it back.
        if ((err as StatusError).code === 404) continue;
        // A conflict or an unreachable store: look again shortly.
        setTimeout(() => this.enqueue(name), 200).unref();
        if ((err as StatusError).code !== 409) console.error(`crd ${name}: ${(err as Error).message}`);
      }
    }
  }

  private cached(name: string): CRD | undefined {
    return this.crds.cacher?.cache.tree.get(this.crds.objectKey('', name))?.object as CRD | undefined;
  }

  private allCached(): CRD[] {
    return [...cachedObjects(this.crds)] as CRD[];
  }

  private async sync(name: string): Promise<void> {
    const crd = this.cached(name);
    if (!crd) {
      const group = this.served.get(name)?.definitions[0]?.group;
      this.unserve(name);
      // Its names are free again: the group's other CRDs may now accept theirs.
      for (const other of this.allCached()) if (other.spec.group === group && !isConditionTrue(other, 'NamesAccepted')) this.enqueue(other.metadata.name!);
      return;
    }
    if (await this.updateNames(crd)) return; // the write's event brings the CRD back
    this.serve(crd);
    if (crd.metadata.deletionTimestamp && (crd.metadata.finalizers ?? []).includes(cleanupFinalizer)) await this.finalize(crd);
  }

  /** The naming and establishing controllers' status write; true when one was made. */
  private async updateNames(crd: CRD): Promise<boolean> {
    const desired = this.desiredStatus(crd, this.allCached());
    if (!desired) return false;
    await this.writeStatus(crd.metadata.name!, (current) => {
      const next = this.desiredStatus(current, this.allCached());
      if (!next) throw unchanged;
      return next;
    }).catch((err) => {
      if (err !== unchanged && (err as StatusError).code !== 404) throw err;
    });
    return true;
  }

  private desiredStatus(crd: CRD, all: CRD[]): CRD | undefined {
    // A terminating CRD keeps its names (kube's naming controller skips nothing, but establishes no more).
    const { names, namesAccepted, established } = calculateNames(crd, all);
    const next = structuredClone(crd);
    const now = nowRFC3339();
    next.status ??= {};
    next.status.acceptedNames = names as CRD['spec']['names'];
    setCondition(next, namesAccepted, now);
    setCondition(next, established, now);
    // The establishing controller: names accepted, not terminating → Established.
    if (namesAccepted.status === 'True' && !crd.metadata.deletionTimestamp && condition(next, 'Established')?.status !== 'True') {
      setCondition(next, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, now);
    }
    const same = JSON.stringify(withoutTimes(next.status)) === JSON.stringify(withoutTimes(crd.status ?? {}));
    return same ? undefined : next;
  }

  private serve(crd: CRD): void {
    const name = crd.metadata.name!;
    const namesAccepted = isConditionTrue(crd, 'NamesAccepted');
    const established = isConditionTrue(crd, 'Established');
    if (!namesAccepted && !established) return this.unserve(name);
    const fingerprint = JSON.stringify([crd.metadata.uid, crd.spec, crd.status?.acceptedNames]);
    const current = this.served.get(name);
    if (current && current.fingerprint === fingerprint) return;
    const { definitions } = crdResources(crd, () => this.conversionResolver);
    if (current) this.host.removeResources(current.definitions);
    this.host.addResources(definitions);
    this.served.set(name, { fingerprint, definitions });
    this.generation++;
  }

  private unserve(name: string): void {
    const current = this.served.get(name);
    if (!current) return;
    this.served.delete(name);
    this.host.removeResources(current.definitions);
    this.generation++;
  }

  /** Whether the CRD serving `def` is being deleted (creates are then refused, as kube's handler does). */
  terminating(def: ResourceDefinition): boolean {
    for (const [name, s] of this.served) if (s.definitions.includes(def)) return !!this.cached(name)?.metadata.deletionTimestamp;
    return false;
  }

  /** kube's CRDFinalizer: delete every instance, record how it went in Terminating, drop the finalizer. */
  private async finalize(crd: CRD): Promise<void> {
    const name = crd.metadata.name!;
    let terminating = { type: 'Terminating', status: 'False', reason: 'NeverEstablished', message: 'resource was never established' } as const as { type: string; status: 'True' | 'False'; reason: string; message: string };
    if (isConditionTrue(crd, 'Established')) {
      await this.setStatusCondition(name, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
      terminating = await this.deleteInstances(crd);
      if (terminating.status === 'True') {
        await this.setStatusCondition(name, terminating);
        setTimeout(() => this.enqueue(name), 1000).unref();
        return;
      }
    }
    await this.crds.guaranteedUpdate('', name, (current) => {
      const next = structuredClone(current) as CRD;
      setCondition(next, terminating, nowRFC3339());
      next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== cleanupFinalizer);
      if (next.metadata.finalizers.length === 0) delete next.metadata.finalizers;
      return next;
    }, { dryRun: false, raw: true }).catch((err) => {
      if ((err as StatusError).code !== 404) throw err;
    });
  }

  private async setStatusCondition(name: string, c: { type: string; status: 'True' | 'False'; reason: string; message: string }): Promise<void> {
    await this.writeStatus(name, (current) => {
      const next = structuredClone(current);
      setCondition(next, c, nowRFC3339());
      return next;
    });
  }

  /** A status write of the controllers, recorded in managedFields as kube's (manager kube-apiserver, subresource status). */
  private async writeStatus(name: string, desired: (current: CRD) => CRD): Promise<void> {
    const manager = await fieldManagerFor(this.crds.def);
    await this.crds.guaranteedUpdate('', name, (current) => {
      const next = desired(current as CRD);
      manager?.update(current, next, 'kube-apiserver', 'status');
      return next;
    }, { dryRun: false, subresource: 'status', raw: true });
  }

  private async deleteInstances(crd: CRD): Promise<{ type: string; status: 'True' | 'False'; reason: string; message: string }> {
    const def = this.served.get(crd.metadata.name!)?.definitions[0];
    const store = def && this.host.storeOf(def);
    if (!store) return { type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' };
    const all = parseListOptions(new URLSearchParams(), false);
    try {
      const { items } = await store.list('', all);
      for (const { object } of items) {
        const o = object as KubeObject;
        await store.delete(o.metadata.namespace ?? '', o.metadata.name!, { dryRun: false }).catch((err) => {
          if ((err as StatusError).code !== 404) throw err;
        });
      }
      // Instances with finalizers of their own stay until those are removed: kube waits for them.
      const left = (await store.list('', all)).items.length;
      if (left > 0) return { type: 'Terminating', status: 'True', reason: 'InstanceDeletionCheck', message: `could not confirm zero CustomResources remaining: timed out waiting for the condition` };
    } catch (err) {
      return { type: 'Terminating', status: 'True', reason: 'InstanceDeletionFailed', message: `could not list instances: ${(err as Error).message}` };
    }
    return { type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' };
  }
}

const unchanged = new Error('status unchanged');

function withoutTimes(status: NonNullable<CRD['status']>): unknown {
  return { ...status, conditions: (status.conditions ?? []).map((c) => ({ ...c, lastTransitionTime: undefined })) };
}

/** kube's crdHandler refuses creates while the CRD is being deleted: 405 with this message. */
export function refuseCreateWhileTerminating(controller: CRDController, def: ResourceDefinition): void {
  if (controller.terminating(def)) throw failure(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating');
}
