/**
 * The objects kube-apiserver keeps up to date about itself, started by each replica once it
 * serves: the `kubernetes` Endpoints and EndpointSlice (kubernetesendpoints.ts over
 * masterleases.ts), the identity Lease and its garbage collector (apiserveridentity.ts), and the
 * automanaged APIServices (autoregister.ts). Every replica runs all of them; each write is a
 * compare-and-swap, so replicas agree without electing a leader, as kube-apiservers do.
 */
import { isIPv4 } from 'node:net';
import type { Storage } from '@windlass/storage';
import type { Store } from '../registry/store.js';
import type { AdmissionLookup } from '../registry/types.js';
import { MasterLeases } from './masterleases.js';
import { KubernetesEndpointsController } from './kubernetesendpoints.js';
import { APIServerIdentity, type IdentityLeaseOptions } from './apiserveridentity.js';
import { APIServiceAutoRegistration } from './autoregister.js';
import { AuthenticationTrustController, type AuthenticationTrust } from './authenticationtrust.js';

export type EndpointReconcilerType = 'lease' | 'none';

export interface ControlPlaneOptions {
  /**
   * kube's --advertise-address: the address this replica lists in the `kubernetes` Endpoints.
   * Unset, or an address kube's Endpoints validation refuses (loopback, link-local,
   * unspecified): no endpoints are recorded for this replica.
   */
  advertiseAddress?: string;
  /** kube's --endpoint-reconciler-type (default lease). */
  endpointReconcilerType?: EndpointReconcilerType;
  /** The master leases' TTL and the reconcile interval (kube: 15 s and 10 s). */
  endpointLeaseTTLMs?: number;
  endpointIntervalMs?: number;
  /** The identity lease (default on): hostname, duration, renew interval and GC period. */
  identity?: false | Omit<IdentityLeaseOptions, 'leases'>;
  /** The automanaged APIServices (default on). */
  autoregister?: boolean;
  /** What kube-system/extension-apiserver-authentication publishes (unset: nothing is written). */
  authenticationTrust?: AuthenticationTrust;
}

/** What the server lends these controllers. */
export interface ControlPlaneHost {
  storage: Storage;
  registryPrefix: string;
  lookup: (group: string, resource: string) => AdmissionLookup | undefined;
  storeFor: (group: string, version: string, resource: string) => Store | undefined;
  /** Built-in group versions served (`v1`, `apps/v1`, …). */
  builtinGroupVersions: string[];
  securePort: number;
  /** Recreates the `kubernetes` Service when it is gone. */
  ensureService: () => Promise<void>;
}

/**
 * Whether kube's Endpoints validation (validateNonSpecialIP) accepts the address: not
 * unspecified, loopback, link-local or link-local multicast. kube-apiserver advertising such an
 * address fails to write its Endpoints on every reconcile; Windlass records none instead.
 */
export function endpointAddressAllowed(ip: string): boolean {
  if (isIPv4(ip)) {
    const [a, b, c] = ip.split('.').map(Number);
    return ip !== '0.0.0.0' && a !== 127 && !(a === 169 && b === 254) && !(a === 224 && b === 0 && c === 0);
  }
  const lower = ip.toLowerCase();
  if (lower === '::' || lower === '::1') return false;
  return !/^fe[89ab]/.test(lower) && !lower.startsWith('ff02:');
}

export class ControlPlaneObjects {
  readonly endpoints?: KubernetesEndpointsController;
  readonly identity?: APIServerIdentity;
  readonly autoregister?: APIServiceAutoRegistration;
  readonly authenticationTrust?: AuthenticationTrustController;

  constructor(o: ControlPlaneOptions, host: ControlPlaneHost) {
    const advertise = o.advertiseAddress;
    if ((o.endpointReconcilerType ?? 'lease') === 'lease' && advertise && endpointAddressAllowed(advertise)) {
      this.endpoints = new KubernetesEndpointsController({
        advertiseAddress: advertise,
        port: host.securePort,
        leases: new MasterLeases(host.storage, host.registryPrefix, o.endpointLeaseTTLMs),
        lookup: host.lookup,
        intervalMs: o.endpointIntervalMs,
        ensureService: host.ensureService,
      });
    }
    const leases = host.storeFor('coordination.k8s.io', 'v1', 'leases');
    if (o.identity !== false && leases) this.identity = new APIServerIdentity({ ...(o.identity ?? {}), leases });
    const apiServices = host.storeFor('apiregistration.k8s.io', 'v1', 'apiservices');
    if (o.autoregister !== false && apiServices) {
      this.autoregister = new APIServiceAutoRegistration({
        apiServices, crds: host.storeFor('apiextensions.k8s.io', 'v1', 'customresourcedefinitions'), builtinGroupVersions: host.builtinGroupVersions,
      });
    }
    if (o.authenticationTrust) this.authenticationTrust = new AuthenticationTrustController(() => host.lookup('', 'configmaps'), o.authenticationTrust);
  }

  start(): void {
    this.endpoints?.start();
    this.identity?.start();
    this.autoregister?.start();
    this.authenticationTrust?.start();
  }

  /** Resolves once every pass under way has finished (tests). */
  async idle(): Promise<void> {
    await Promise.all([this.endpoints?.idle(), this.identity?.idle(), this.autoregister?.idle(), this.authenticationTrust?.idle()]);
  }

  /**
   * Graceful shutdown: this replica's master lease is removed and the Endpoints no longer list
   * it (kube's kubernetes-service controller Stop); the identity lease stays, to be renewed by
   * the next start on this host or collected after it expires, as kube leaves it.
   */
  async leave(): Promise<void> {
    this.identity?.stop();
    this.autoregister?.stop();
    this.authenticationTrust?.stop();
    await this.endpoints?.leave();
  }

  stop(): void {
    this.endpoints?.stop();
    this.identity?.stop();
    this.autoregister?.stop();
    this.authenticationTrust?.stop();
  }
}

/** The group versions of the built-in resources among `defs` (`v1`, `apps/v1`, …), custom resources left out. */
export function builtinGroupVersions(defs: { group: string; version: string; customResource?: unknown }[]): string[] {
  return [...new Set(defs.filter((d) => !d.customResource).map((d) => (d.group ? `${d.group}/${d.version}` : d.version)))];
}
