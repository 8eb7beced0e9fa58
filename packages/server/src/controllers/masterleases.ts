/**
 * kube's storageLeases (pkg/controlplane/reconcilers/lease.go): every replica records its
 * advertise address under `<prefix>/masterleases/<ip>`, the same key kube-apiserver uses, as a
 * v1 Endpoints holding that one address, and renews it on each reconcile; the live records
 * are the replicas the `kubernetes` Endpoints lists.
 *
 * kube gives each record an etcd lease of --endpoint-reconciler TTL (15 s), so a replica that
 * stops renewing disappears by itself. The storage contract has no TTL (the embedded backend
 * has nothing like it), so the record carries its expiry instead: `expires`, the writer's
 * clock plus the TTL, beside the Endpoints' fields. Readers treat a record past its expiry as
 * absent and delete it with a compare-and-delete at the revision they read, so a renewal
 * racing the deletion wins. Like kube's identity-lease GC, this assumes the replicas' clocks
 * agree to well within the TTL.
 */
import { isStorageError, type Storage } from '@windlass/storage';

/** kube's DefaultEndpointReconcilerTTL. */
export const defaultMasterLeaseTTLMs = 15_000;

interface LeaseRecord {
  kind: 'Endpoints';
  apiVersion: 'v1';
  metadata: { generation: number; creationTimestamp: null };
  subsets: { addresses: { ip: string }[] }[];
  /** RFC 3339: when the record stops counting (what kube's etcd lease expresses as a TTL). */
  expires: string;
}

/** The address a record names, as kube's ListLeases reads it, when the record has not expired. */
function liveAddress(value: Buffer, now: number): string | undefined {
  let rec: Partial<LeaseRecord>;
  try {
    rec = JSON.parse(value.toString('utf8')) as Partial<LeaseRecord>;
  } catch {
    return undefined;
  }
  const expires = Date.parse(rec.expires ?? '');
  if (!(expires > now)) return undefined;
  const ip = rec.subsets?.[0]?.addresses?.[0]?.ip;
  return typeof ip === 'string' && ip !== '' ? ip : undefined;
}

export class MasterLeases {
  private readonly baseKey: string;

  constructor(private readonly storage: Storage, registryPrefix: string, private readonly ttlMs = defaultMasterLeaseTTLMs, private readonly now: () => number = Date.now) {
    this.baseKey = `${registryPrefix}/masterleases/`;
  }

  /** The addresses of unexpired records, in key order (kube's ListLeases); expired ones are deleted on the way. */
  async list(): Promise<string[]> {
    const { items } = await this.storage.range(this.baseKey, { prefix: true });
    const now = this.now();
    const ips: string[] = [];
    for (const kv of items) {
      const ip = liveAddress(kv.value, now);
      if (ip !== undefined) {
        ips.push(ip);
        continue;
      }
      // What etcd would have done at the TTL; a renewal since the read keeps the record.
      await this.storage.delete(kv.key, kv.modRevision).catch((err: unknown) => {
        if (!isStorageError(err, 'Conflict') && !isStorageError(err, 'NotFound')) throw err;
      });
    }
    return ips;
  }

  /** kube's UpdateLease: the record for `ip` written again with a fresh expiry (created when absent). */
  async update(ip: string): Promise<void> {
    const key = this.baseKey + ip;
    for (;;) {
      const current = await this.storage.get(key);
      let generation = 0;
      if (current) {
        try {
          generation = Number((JSON.parse(current.value.toString('utf8')) as Partial<LeaseRecord>).metadata?.generation) || 0;
        } catch {
          generation = 0;
        }
      }
      // kube bumps the generation so that GuaranteedUpdate writes (and the TTL restarts) even when nothing else changed.
      const record: LeaseRecord = {
        kind: 'Endpoints', apiVersion: 'v1',
        metadata: { generation: generation + 1, creationTimestamp: null },
        subsets: [{ addresses: [{ ip }] }],
        expires: new Date(this.now() + this.ttlMs).toISOString(),
      };
      const value = Buffer.from(JSON.stringify(record));
      try {
        if (current) await this.storage.update(key, value, current.modRevision);
        else await this.storage.create(key, value);
        return;
      } catch (err) {
        // Another writer of the same address (a --workers sibling) got there first: start from its record.
        if (!isStorageError(err, 'Conflict') && !isStorageError(err, 'KeyExists') && !isStorageError(err, 'NotFound')) throw err;
      }
    }
  }

  /** kube's RemoveLease (graceful shutdown): the record goes at once rather than at its expiry. */
  async remove(ip: string): Promise<void> {
    const key = this.baseKey + ip;
    for (;;) {
      const current = await this.storage.get(key);
      if (!current) return;
      try {
        await this.storage.delete(key, current.modRevision);
        return;
      } catch (err) {
        if (isStorageError(err, 'NotFound')) return;
        if (!isStorageError(err, 'Conflict')) throw err;
      }
    }
  }
}
