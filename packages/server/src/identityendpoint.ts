/**
 * `GET /windlass/v1/identity`: which process answered, `{"pid": P, "worker": W}` (W is the
 * node:cluster worker id of `windlass start --workers N`, 0 without workers). Tests use it
 * to hold connections they know reach different workers; any authenticated user may ask.
 */
import cluster from 'node:cluster';
import { Router } from 'express';
import { newMethodNotAllowed } from '@windlass/machinery';
import { writeError, writeObject } from './respond.js';

export const identityPath = '/windlass/v1/identity';

export function identityRoute(): Router {
  const router = Router();
  router.all(identityPath, (req, res) => {
    if (req.method !== 'GET') {
      res.setHeader('Allow', 'GET');
      return writeError(res, newMethodNotAllowed());
    }
    writeObject(res, 200, { pid: process.pid, worker: cluster.worker?.id ?? 0 }, { mediaType: 'application/json', pretty: false });
  });
  return router;
}
