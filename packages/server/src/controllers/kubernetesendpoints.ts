/**
 * The endpoints of the `kubernetes` Service in `default`, as kube-apiserver 1.35 keeps them
 * (pkg/controlplane/controller/kubernetesservice, reconcilers/lease.go, endpointsadapter.go):
 * every EndpointInterval each replica renews its master lease, lists the live ones and syncs
 * the Endpoints and the EndpointSlice to exactly those addresses, port `https` = the secure
 * port. Pods reach the API through the Service's ClusterIP; a replica that stops renewing
 * leaves both once its lease expires, one that shuts down gracefully leaves at once.
 */
import { isIPv4 } from 'node:net';
import type { AdmissionLookup, KubeObject } from '../registry/types.js';
import { semanticEqual } from '../registry/semanticequal.js';
import type { MasterLeases } from './masterleases.js';

/** kube's DefaultEndpointReconcilerInterval. */
export const defaultEndpointIntervalMs = 10_000;

const serviceName = 'kubernetes';
const namespace = 'default';
/** discovery.LabelSkipMirror: the EndpointSlice mirroring controller leaves these Endpoints alone. */
const skipMirrorLabel = 'endpointslice.kubernetes.io/skip-mirror';
/** discovery.LabelServiceName. */
const serviceNameLabel = 'kubernetes.io/service-name';
/** isRetriableError's conflicts (409): another replica wrote first, so read again. */
const maxSyncAttempts = 5;

interface EndpointPort { name: string; port: number; protocol: string }

type Lookup = (group: string, resource: string) => AdmissionLookup | undefined;

/**
 * kube's EndpointsAdapter.Sync: the Endpoints and the primary-family EndpointSlice list `ips`
 * (sorted, as sets.List sorts them), other slices of the Service are deleted. Ports are set
 * when missing, or when `reconcilePorts` and they differ.
 */
export async function syncKubernetesEndpoints(lookup: Lookup, ips: string[], ports: EndpointPort[], reconcilePorts: boolean, ipv4 = true): Promise<void> {
  // Only the Service's family: kube would put the others in a secondary slice, which needs a
  // secondary service range Windlass does not have.
  const sorted = [...new Set(ips)].filter((ip) => isIPv4(ip) === ipv4).sort();
  const endpoints = lookup('', 'endpoints');
  const slices = lookup('discovery.k8s.io', 'endpointslices');
  if (!endpoints || !slices) return;
  await retryConflicts(async () => {
    const current = await endpoints.get(namespace, serviceName);
    const desired = desiredEndpoints(current, sorted, ports, reconcilePorts);
    if (!current) await endpoints.create(namespace, desired);
    else if (!semanticEqual(current.subsets, desired.subsets) || !semanticEqual(current.metadata.labels, desired.metadata.labels)) await endpoints.update!(namespace, desired);
  });
  await retryConflicts(async () => {
    const ofService = (await slices.list(namespace)).filter((s) => s.metadata.labels?.[serviceNameLabel] === serviceName);
    const addressType = ipv4 ? 'IPv4' : 'IPv6';
    const current = ofService.find((s) => s.metadata.name === serviceName && s.addressType === addressType);
    for (const other of ofService) if (other !== current) await slices.delete(namespace, other.metadata.name!);
    const desired = desiredSlice(current, addressType, sorted, ports, reconcilePorts);
    if (!current) await slices.create(namespace, desired);
    else if (!semanticEqual(current.endpoints, desired.endpoints) || !semanticEqual(current.ports, desired.ports) || !semanticEqual(current.metadata.labels, desired.metadata.labels)) {
      await slices.update!(namespace, desired);
    }
  });
}

async function retryConflicts(write: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code !== 409 || attempt >= maxSyncAttempts) throw err;
      // The cached copy may trail the write that beat us: give the watch a moment.
      await new Promise((r) => setTimeout(r, 10 * attempt));
    }
  }
}

/** kube's updateEndpoints: the labels are exactly skip-mirror, one subset, the addresses replaced. */
function desiredEndpoints(current: KubeObject | undefined, ips: string[], ports: EndpointPort[], reconcilePorts: boolean): KubeObject {
  const e: KubeObject = current ? structuredClone(current) : { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: serviceName, namespace } };
  e.metadata.labels = { [skipMirrorLabel]: 'true' };
  if (ips.length === 0) {
    // The last replica left. kube writes one subset without addresses, which its own Endpoints
    // validation refuses (the Endpoints keep the stopped server); its tests expect them emptied,
    // which is what RepackSubsets makes of that subset and what is written here.
    delete e.subsets;
    return e;
  }
  let subsets = Array.isArray(e.subsets) ? (e.subsets as Record<string, unknown>[]) : [];
  if (subsets.length !== 1) subsets = [{}];
  const subset = subsets[0]!;
  subset.addresses = ips.map((ip) => ({ ip }));
  const have = Array.isArray(subset.ports) ? subset.ports : [];
  if (have.length === 0 || (reconcilePorts && !semanticEqual(have, ports))) subset.ports = ports.map((p) => ({ ...p }));
  e.subsets = subsets;
  return e;
}

/** kube's updateEndpointSlice: one endpoint per address, each ready. */
function desiredSlice(current: KubeObject | undefined, addressType: string, ips: string[], ports: EndpointPort[], reconcilePorts: boolean): KubeObject {
  const s: KubeObject = current ? structuredClone(current) : { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: serviceName, namespace } };
  s.metadata.labels = { [serviceNameLabel]: serviceName };
  s.addressType = addressType;
  s.endpoints = ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } }));
  const want = ports.map((p) => ({ name: p.name, port: p.port, protocol: p.protocol }));
  const have = Array.isArray(s.ports) ? s.ports : [];
  if (have.length === 0 || (reconcilePorts && !semanticEqual(have, want))) s.ports = want;
  return s;
}

export interface KubernetesEndpointsOptions {
  /** This replica's --advertise-address. */
  advertiseAddress: string;
  /** The secure port: the Endpoints' `https` port. */
  port: number;
  leases: MasterLeases;
  lookup: Lookup;
  intervalMs?: number;
  /** Runs first on every tick: kube's controller recreates the Service too when it is gone. */
  ensureService?: () => Promise<void>;
  /** Whether the Service range is IPv4 (the primary address family). */
  ipv4?: boolean;
}

/**
 * kube's lease endpoint reconciler driven by the kubernetes-service controller: ReconcileEndpoints
 * on every tick, RemoveEndpoints at graceful shutdown. Errors are logged once per kind of failure
 * and retried on the next tick, as kube's loop does.
 */
export class KubernetesEndpointsController {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopReconciling = false;
  private lastError = '';
  private readonly ports: EndpointPort[];
  private readonly intervalMs: number;

  constructor(private readonly o: KubernetesEndpointsOptions) {
    this.ports = [{ name: 'https', port: o.port, protocol: 'TCP' }];
    this.intervalMs = o.intervalMs ?? defaultEndpointIntervalMs;
  }

  /** The first pass reconciles ports too (kube's start-up pass), later ones only addresses. */
  start(): void {
    this.tick(true);
    this.timer = setInterval(() => this.tick(false), this.intervalMs);
    this.timer.unref();
  }

  /** Resolves when the pass under way (if any) has finished. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Runs one pass now (tests, and start-up). */
  reconcileNow(reconcilePorts = false): Promise<void> {
    this.tick(reconcilePorts);
    return this.idle();
  }

  private tick(reconcilePorts: boolean): void {
    if (this.running || this.stopReconciling) return;
    this.running = this.reconcile(reconcilePorts).then(() => { this.lastError = ''; }, (err: unknown) => this.report(err)).finally(() => { this.running = undefined; });
  }

  private async reconcile(reconcilePorts: boolean): Promise<void> {
    await this.o.ensureService?.();
    if (this.stopReconciling) return;
    // Renewed first, whatever happens below, so that some replica lists this one.
    await this.o.leases.update(this.o.advertiseAddress);
    await this.sync(reconcilePorts);
  }

  private async sync(reconcilePorts: boolean): Promise<void> {
    const ips = await this.o.leases.list();
    if (!this.stopReconciling && ips.length === 0) {
      throw new Error('no API server IP addresses were listed in storage, refusing to erase all endpoints for the kubernetes Service');
    }
    await syncKubernetesEndpoints(this.o.lookup, ips, this.ports, reconcilePorts, this.o.ipv4 ?? true);
  }

  private report(err: unknown): void {
    const message = (err as Error).message;
    if (message === this.lastError || this.stopReconciling) return;
    this.lastError = message;
    console.error(`unable to sync kubernetes service endpoints: ${message}`);
  }

  /**
   * kube's Stop: no more renewals, this replica's lease removed and the Endpoints synced without
   * it (emptied when it was the last), given up after two intervals if the store is unreachable.
   */
  async leave(): Promise<void> {
    this.stopReconciling = true;
    if (this.timer) clearInterval(this.timer);
    await this.idle();
    let timer: NodeJS.Timeout | undefined;
    // kube waits two intervals; short test intervals still get a couple of seconds.
    const timeout = new Promise<void>((resolve) => { timer = setTimeout(resolve, 2 * Math.max(this.intervalMs, 1000)); });
    const remove = (async () => {
      await this.o.leases.remove(this.o.advertiseAddress);
      await this.sync(true);
    })().catch((err: unknown) => console.error(`unable to remove endpoints from kubernetes service: ${(err as Error).message}`));
    await Promise.race([remove, timeout]);
    clearTimeout(timer);
  }

  stop(): void {
    this.stopReconciling = true;
    if (this.timer) clearInterval(this.timer);
  }
}
