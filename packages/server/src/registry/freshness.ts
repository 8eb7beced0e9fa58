/**
 * Waiting for the store to reach a client's resourceVersion, and kube's 504 when it does not
 * ("Too large resource version"), for get/list with resourceVersion in the future.
 */
import type { Storage } from '@windlass/storage';
import { newTimeout } from '@windlass/machinery';

const pollMs = 25;

export async function waitForRevision(storage: Storage, revision: number, timeoutMs = 3000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = await storage.currentRevision();
    if (current >= revision) return current;
    if (Date.now() >= deadline) throw tooLargeResourceVersion(revision, current);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

export function tooLargeResourceVersion(requested: number, current: number) {
  const err = newTimeout(`Too large resource version: ${requested}, current: ${current}`, 1);
  err.status.details!.causes = [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }];
  return err;
}
