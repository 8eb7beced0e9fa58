/**
 * kube-apiserver's identity (feature APIServerIdentity, on since 1.26): each server holds the
 * Lease `kube-system/apiserver-<id>`, labelled `apiserver.kubernetes.io/identity:
 * kube-apiserver` and `kubernetes.io/hostname`, renews it every 10 s with a duration of an
 * hour (pkg/controlplane/apiserver/server.go, component-helpers' lease controller), and every
 * server deletes the identity leases that expired (apiserverleasegc), so that a server gone
 * for good disappears from `kubectl get leases -n kube-system` within the hour after its lease ran out.
 */
import { createHash, randomUUID } from 'node:crypto';
import { hostname as osHostname } from 'node:os';
import { cachedObjects } from './follower.js';
import type { Store } from '../registry/store.js';
import type { KubeObject } from '../registry/types.js';

export const identityLeaseLabel = 'apiserver.kubernetes.io/identity';
export const hostnameLabel = 'kubernetes.io/hostname';
const component = 'kube-apiserver';
const leaseNamespace = 'kube-system';

/** kube's IdentityLeaseDurationSeconds, IdentityLeaseRenewIntervalPeriod and IdentityLeaseGCPeriod. */
export const defaultIdentityLeaseDurationSeconds = 3600;
export const defaultIdentityRenewIntervalMs = 10_000;
export const defaultIdentityGCPeriodMs = 3600_000;
/** The lease controller's maxUpdateRetries. */
const maxUpdateRetries = 5;

const base32Alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32NoPadding(bytes: Uint8Array): string {
  let out = '';
  let bits = 0, value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += base32Alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += base32Alphabet[(value << (5 - bits)) & 31];
  return out;
}

/**
 * k8s.io/apiserver's APIServerID: "apiserver-" and the lower-cased, unpadded base32 of the first
 * 16 bytes of SHA-256 over the hostname and "kube-apiserver", each prefixed with its length as a
 * big-endian uint16 (cryptobyte's AddUint16LengthPrefixed). The same host gives the same id
 * across restarts, which is what lets a restarted server take its lease back.
 */
export function apiserverIdentity(hostname: string): string {
  const part = (s: string) => {
    const bytes = Buffer.from(s, 'utf8');
    const len = Buffer.alloc(2);
    len.writeUInt16BE(bytes.length);
    return [len, bytes];
  };
  const hash = createHash('sha256').update(Buffer.concat([...part(hostname), ...part(component)])).digest();
  return `apiserver-${base32NoPadding(hash.subarray(0, 16)).toLowerCase()}`;
}

/** metav1.MicroTime as Go marshals it: RFC 3339 with six fractional digits, UTC. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

interface LeaseSpec { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string }
type Lease = KubeObject & { spec?: LeaseSpec };

export interface IdentityLeaseOptions {
  leases: Store;
  /** kubernetes.io/hostname, and the input of the id (default the host's name). */
  hostname?: string;
  leaseDurationSeconds?: number;
  renewIntervalMs?: number;
  gcPeriodMs?: number;
  now?: () => number;
}

const isCode = (err: unknown, code: number) => (err as { code?: number }).code === code;

/**
 * The identity lease controller and the lease garbage collector of one replica. Replicas on
 * one host share an id, as kube-apiservers on one host would (the `--workers` of one server
 * do): whichever renews first keeps the lease fresh, and the others skip a renewal that one of
 * them made less than half an interval ago rather than each writing it.
 */
export class APIServerIdentity {
  readonly hostname: string;
  readonly id: string;
  readonly holderIdentity: string;
  private readonly durationSeconds: number;
  private readonly renewIntervalMs: number;
  private readonly gcPeriodMs: number;
  private readonly now: () => number;
  private latest?: Lease;
  private lastRenewal = 0;
  private renewTimer?: NodeJS.Timeout;
  private gcTimer?: NodeJS.Timeout;
  private running = new Set<Promise<void>>();
  private stopped = false;
  private lastError = '';

  constructor(private readonly o: IdentityLeaseOptions) {
    this.hostname = o.hostname ?? osHostname();
    this.id = apiserverIdentity(this.hostname);
    this.holderIdentity = `${this.id}_${randomUUID()}`;
    this.durationSeconds = o.leaseDurationSeconds ?? defaultIdentityLeaseDurationSeconds;
    this.renewIntervalMs = o.renewIntervalMs ?? defaultIdentityRenewIntervalMs;
    this.gcPeriodMs = o.gcPeriodMs ?? defaultIdentityGCPeriodMs;
    this.now = o.now ?? Date.now;
  }

  /** Renews now and every interval (kube's JitterUntil with 4 % jitter), collects now and every GC period. */
  start(): void {
    const renew = () => {
      this.track(this.renew());
      this.renewTimer = setTimeout(renew, this.renewIntervalMs * (1 + Math.random() * 0.04));
      this.renewTimer.unref();
    };
    renew();
    this.track(this.collect());
    this.gcTimer = setInterval(() => this.track(this.collect()), this.gcPeriodMs);
    this.gcTimer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.renewTimer);
    clearInterval(this.gcTimer);
  }

  /** Resolves once the renewals and collections under way have finished. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }

  private track(p: Promise<void>): void {
    const done = p.catch((err: unknown) => this.report(err)).finally(() => this.running.delete(done));
    this.running.add(done);
  }

  private report(err: unknown): void {
    const message = (err as Error).message;
    if (this.stopped || message === this.lastError) return;
    this.lastError = message;
    console.error(`apiserver identity lease ${this.id}: ${message}`);
  }

  /** kube's newLease: a fresh lease names its holder; a renewal keeps the holder and sets duration, renewTime and the labels. */
  private newLease(base: Lease | undefined): Lease {
    const lease: Lease = base
      ? structuredClone(base)
      : { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.id, namespace: leaseNamespace }, spec: { holderIdentity: this.holderIdentity } };
    lease.spec = { ...lease.spec, leaseDurationSeconds: this.durationSeconds, renewTime: microTime(this.now()) };
    lease.metadata.labels = { ...lease.metadata.labels, [identityLeaseLabel]: component, [hostnameLabel]: this.hostname };
    return lease;
  }

  /** One renewal: kube's sync (update from the latest copy, else ensure the lease and update it). */
  async renew(): Promise<void> {
    if (this.stopped) return;
    const seen = this.cached();
    const renewedAt = Date.parse(seen?.spec?.renewTime ?? '');
    // A sibling with this id renewed it after we last did, and recently: nothing to add.
    if (renewedAt > this.lastRenewal && this.now() - renewedAt < this.renewIntervalMs / 2) return;
    if (this.latest && (await this.update(this.latest))) return;
    const { lease, created } = await this.ensure();
    if (!created) await this.update(lease);
  }

  private cached(): Lease | undefined {
    return this.o.leases.cacher?.cache.tree.get(this.o.leases.objectKey(leaseNamespace, this.id))?.object as Lease | undefined;
  }

  private async ensure(): Promise<{ lease: Lease; created: boolean }> {
    try {
      return { lease: (await this.o.leases.get(leaseNamespace, this.id)).object as Lease, created: false };
    } catch (err) {
      if (!isCode(err, 404)) throw err;
    }
    const lease = (await this.o.leases.create(leaseNamespace, this.newLease(undefined), { dryRun: false })).object as Lease;
    this.remember(lease);
    return { lease, created: true };
  }

  /** kube's retryUpdateLease: a conflict reads the lease again; false when every attempt failed. */
  private async update(base: Lease): Promise<boolean> {
    for (let i = 0; i < maxUpdateRetries && !this.stopped; i++) {
      try {
        const { object } = await this.o.leases.update(leaseNamespace, this.id, this.newLease(base), { dryRun: false });
        this.remember(object.object as Lease);
        return true;
      } catch (err) {
        if (!isCode(err, 409) && !isCode(err, 404)) throw err;
        this.latest = undefined;
        const { lease, created } = await this.ensure();
        if (created) return true;
        base = lease;
      }
    }
    return false;
  }

  private remember(lease: Lease): void {
    this.latest = lease;
    this.lastRenewal = Date.parse(lease.spec?.renewTime ?? '') || this.now();
  }

  /**
   * kube's apiserverleasegc: every identity lease of kube-apiservers whose renewTime plus
   * duration has passed (or that lacks either) is read again from the store and, still
   * expired, deleted; another replica deleting it first is fine.
   */
  async collect(): Promise<void> {
    if (this.stopped) return;
    const cacher = this.o.leases.cacher;
    const prefix = this.o.leases.objectKey(leaseNamespace, '');
    const candidates: string[] = [];
    if (cacher?.live) {
      for (const lease of cachedObjects(this.o.leases, prefix) as Generator<Lease>) {
        if (lease.metadata.labels?.[identityLeaseLabel] === component && this.expired(lease)) candidates.push(lease.metadata.name!);
      }
    }
    for (const name of candidates) {
      let lease: Lease;
      try {
        lease = (await this.o.leases.get(leaseNamespace, name)).object as Lease;
      } catch (err) {
        if (isCode(err, 404)) continue;
        throw err;
      }
      if (!this.expired(lease)) continue;
      try {
        // Preconditioned on what was read, so a renewal racing the collection keeps its lease.
        await this.o.leases.delete(leaseNamespace, name, { dryRun: false, preconditions: { uid: lease.metadata.uid, resourceVersion: lease.metadata.resourceVersion } });
      } catch (err) {
        if (!isCode(err, 404) && !isCode(err, 409)) throw err;
      }
    }
  }

  private expired(lease: Lease): boolean {
    const renew = Date.parse(lease.spec?.renewTime ?? '');
    const duration = lease.spec?.leaseDurationSeconds;
    return Number.isNaN(renew) || typeof duration !== 'number' || renew + duration * 1000 < this.now();
  }
}
