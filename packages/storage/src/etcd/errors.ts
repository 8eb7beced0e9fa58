import { compactedError, futureRevision } from '../errors.js';
import { StorageError } from '../types.js';
import { GrpcCallError, isRetryableGrpcError } from './grpc.js';

/**
 * Translate what the etcd client throws into the contract's errors. etcd reports MVCC errors
 * only as message text ("etcdserver: mvcc: required revision has been compacted"), so those
 * are matched on the message; a call that got no answer, or was answered UNAVAILABLE
 * (no leader, request timed out), CANCELLED or DEADLINE_EXCEEDED, is Unavailable.
 */
export function mapEtcdError(err: unknown, revision?: number): unknown {
  if (err instanceof StorageError || !(err instanceof Error)) return err;
  const msg = err.message;
  if (msg.includes('required revision has been compacted')) return withCause(compactedError(revision ?? 0), err);
  if (msg.includes('required revision is a future revision')) return withCause(futureRevision(revision ?? 0), err);
  if (isRetryableGrpcError(err) || (err instanceof GrpcCallError && err.code === 4)) {
    return withCause(new StorageError('Unavailable', `etcd unavailable: ${msg}`), err);
  }
  return err;
}

function withCause(e: StorageError, cause: Error): StorageError {
  (e as { cause?: unknown }).cause = cause;
  return e;
}

/** Call etcd, translating its errors; `revision` names the revision an MVCC error is about. */
export async function etcdCall<T>(fn: () => Promise<T>, revision?: number): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw mapEtcdError(err, revision);
  }
}
