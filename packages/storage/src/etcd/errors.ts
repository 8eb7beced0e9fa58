import {
  castGrpcError,
  ClientClosedError,
  GRPCCancelledError,
  GRPCDeadlineExceededError,
  GRPCUnavailableError,
  isRecoverableError,
} from 'etcd3';
import { compactedError, futureRevision } from '../errors.js';
import { GrpcCallError, isRetryableGrpcError } from './grpc.js';
import { StorageError } from '../types.js';

/**
 * Translate what etcd3 throws into the contract's errors. etcd reports MVCC errors only
 * as message text ("etcdserver: mvcc: required revision has been compacted"), so those
 * are matched on the message; connection trouble comes as typed gRPC errors (GrpcCallError
 * from the KV client, etcd3's own from watches), or as cockatiel's BrokenCircuitError once
 * etcd3's per-host circuit breaker has opened.
 */
export function mapEtcdError(err: unknown, revision?: number): unknown {
  if (err instanceof StorageError || !(err instanceof Error)) return err;
  // Unary calls come typed by etcd3; stream errors arrive as grpc-js's plain Errors.
  err = castGrpcError(err);
  if (!(err instanceof Error)) return err;
  const msg = err.message;
  if (msg.includes('required revision has been compacted')) return withCause(compactedError(revision ?? 0), err);
  if (msg.includes('required revision is a future revision')) return withCause(futureRevision(revision ?? 0), err);
  if (isUnavailable(err)) return withCause(new StorageError('Unavailable', `etcd unavailable: ${msg}`), err);
  return err;
}

export function isUnavailable(err: Error): boolean {
  return (
    isRetryableGrpcError(err) ||
    (err instanceof GrpcCallError && err.code === 4) ||
    err instanceof GRPCUnavailableError ||
    err instanceof GRPCDeadlineExceededError ||
    err instanceof GRPCCancelledError ||
    err instanceof ClientClosedError ||
    err.name === 'BrokenCircuitError' ||
    (err as { isBrokenCircuitError?: boolean }).isBrokenCircuitError === true ||
    err.name === 'TaskCancelledError' ||
    isRecoverableError(err)
  );
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
