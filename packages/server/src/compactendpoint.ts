/**
 * On-demand compaction for tests and operators: `POST /windlass/v1/compact` with
 * `{"revision": R}` compacts the store up to R (what `windlass compact` calls).
 *
 * Who may call it is the authorizer's to say, as for any non-resource URL (`post` on
 * /windlass/v1/compact: cluster-admin's `*` URLs or system:masters). Answers are Status objects whose
 * metadata.resourceVersion is the store's compacted revision after the call:
 * - 200 Success: compacted up to R;
 * - 400 BadRequest: no integer R > 0 in the body, or R above the current revision;
 * - 409 Conflict: R is at or below the compacted revision (as etcd, which refuses to
 *   compact to a revision it already compacted), so a caller learns it compacted nothing.
 */
import { Router, type Request, type Response } from 'express';
import { failure, newBadRequest, newMethodNotAllowed, type Status, type StatusError } from '@windlass/machinery';
import { isStorageError } from '@windlass/storage';
import type { Compactor } from './controllers/compactor.js';
import { writeError, writeObject } from './respond.js';

export const compactPath = '/windlass/v1/compact';

const json = { mediaType: 'application/json', pretty: false } as const;

export function compactRoute(compactor: Compactor): Router {
  const router = Router();
  router.all(compactPath, (req, res) => {
    serveCompact(compactor, req, res).catch((err) => writeError(res, err));
  });
  return router;
}

async function serveCompact(compactor: Compactor, req: Request, res: Response): Promise<void> {
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    throw newMethodNotAllowed();
  }
  const revision = parseRevision(req.body);
  const { storage } = compactor;
  try {
    await compactor.compactTo(revision);
  } catch (err) {
    if (isStorageError(err, 'FutureRevision')) {
      const current = err.details.currentRevision ?? (await storage.currentRevision());
      throw newBadRequest(`revision ${revision} is in the future: the current revision is ${current}`);
    }
    if (isStorageError(err, 'Compacted')) {
      const compacted = await storage.compactedRevision();
      throw withRevision(failure(409, 'Conflict', `revision ${revision} is already compacted: the store is compacted up to revision ${compacted}`), compacted);
    }
    throw err;
  }
  const ok: Status = { kind: 'Status', apiVersion: 'v1', metadata: { resourceVersion: String(revision) }, status: 'Success', message: `compacted up to revision ${revision}`, code: 200 };
  writeObject(res, 200, ok, json);
}

function parseRevision(body: unknown): number {
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.isBuffer(body) ? body.toString('utf8') : '');
  } catch {
    doc = undefined;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw newBadRequest('the request body must be a JSON object such as {"revision": 42}');
  }
  const revision = (doc as { revision?: unknown }).revision;
  if (revision === undefined) throw newBadRequest('revision is required: the request body must be a JSON object such as {"revision": 42}');
  if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision <= 0) {
    throw newBadRequest(`revision must be a positive integer, got ${JSON.stringify(revision)}`);
  }
  return revision;
}

function withRevision(err: StatusError, revision: number): StatusError {
  err.status.metadata.resourceVersion = String(revision);
  return err;
}
