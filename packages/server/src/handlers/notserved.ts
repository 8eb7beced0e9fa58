/**
 * Requests no handler takes: a subresource the kind does not have, or a method its route does
 * not accept (a PUT to pods/exec, a POST to pods/log; the connect subresources are
 * handlers/connect.ts), and creates of the resources kube computes per request that have no
 * review handler. They get kube's 404 or 405 Status, never a crash.
 */
import { failure, newMethodNotAllowed, newMethodNotSupported } from '@windlass/machinery';
import type { RequestInfo } from '../requestinfo.js';
import type { ResourceDefinition } from '../registry/types.js';

/** Always throws: 404 for a subresource the kind does not have, 405 otherwise. */
export function refuseSubresource(def: ResourceDefinition, info: RequestInfo): never {
  const sub = def.subresources?.find((s) => s.name === info.subresource);
  if (!sub) throw failure(404, 'NotFound', 'the server could not find the requested resource', {});
  if (!sub.verbs.includes(info.verb)) throw newMethodNotAllowed();
  throw newMethodNotSupported({ group: def.group, resource: `${def.resource}/${sub.name}` }, info.verb);
}

/** Resources that are not stored: reads fall through to the (empty) Store; creates are refused for now. */
export function refuseComputed(def: ResourceDefinition, info: RequestInfo): void {
  if (info.verb === 'create') throw newMethodNotSupported({ group: def.group, resource: def.resource }, info.verb);
}
