/**
 * The connect subresources kube-apiserver serves and Windlass lists in discovery: pods/log
 * (LogREST, a GET with PodLogOptions), pods/exec, pods/attach, pods/portforward (Connecters,
 * GET and POST with a connection upgrade, proxied to the pod's kubelet) and the proxy
 * subresources of pods, services and nodes (every method, with and without a trailing path).
 * The order of kube's ConnectResource is kept: dryRun refused, options decoded, CONNECT
 * admission, the `create` check websocket upgrades need (AuthorizePodWebsocketUpgradeCreatePermission,
 * on in 1.35), the location, then the proxy. Where the kubelet or backend answers, what it
 * answers is relayed (connectproxy.ts); where it cannot be reached, kube's errors are.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { readFileSync } from 'node:fs';
import { newBadRequest, newForbidden } from '@windlass/machinery';
import type { AdmissionLookup, DynamicAdmission, DynamicAdmissionAttributes, KubeObject, ResourceDefinition } from '../registry/types.js';
import type { Authorizer } from '../rbac/types.js';
import { systemPrivilegedGroup } from '../rbac/types.js';
import { resourceAttributes } from '../filters/authorization.js';
import type { RequestScope } from './scope.js';
import { addWarnings } from './typed.js';
import { decodePodLogOptions, decodePortForwardPorts, decodeStreamOptions, kubeletLogQuery, kubeletPortForwardQuery, kubeletStreamQuery, streamOptionsObject, validatePodLogOptions } from './connectoptions.js';
import { joinPreservingTrailingSlash, logLocation, nodeProxyLocation, podProxyLocation, serviceProxyLocation, streamLocation, type Location, type Pod } from './connectlocation.js';
import { kubeletBackend, proxyBackend, type BackendTLS, type KubeletTLS } from './connectnet.js';
import { proxyRequest, streamLog } from './connectproxy.js';
import { upgradeListener } from './connectupgrade.js';

/** kube's --kubelet-certificate-authority, --kubelet-client-certificate, --kubelet-client-key: files read at start. */
export interface KubeletClientFiles {
  certificateAuthority?: string;
  clientCertificate?: string;
  clientKey?: string;
}

export interface ConnectHost {
  lookup(group: string, resource: string): AdmissionLookup | undefined;
  /** Absent when the server runs without authentication (everything is allowed). */
  authorizer?(): Authorizer | undefined;
  dynamicAdmission: DynamicAdmission;
  kubeletClient?: KubeletClientFiles;
}

const readFlagFile = (file: string | undefined, flag: string) => {
  if (file === undefined) return undefined;
  try {
    return readFileSync(file);
  } catch (err) {
    throw new Error(`--${flag}: ${(err as Error).message}`);
  }
};

/** One server's connect subresources: the kubelet client's credentials and the sockets taken over by upgrades. */
export class ConnectHandler {
  /** Client sockets of upgraded (and upgrading) requests, closed with the server. */
  readonly sockets = new Set<Duplex>();
  readonly kubelet: KubeletTLS;

  readonly lookup = (group: string, resource: string) => this.host.lookup(group, resource);

  constructor(readonly host: ConnectHost) {
    const f = host.kubeletClient ?? {};
    this.kubelet = {
      ca: readFlagFile(f.certificateAuthority, 'kubelet-certificate-authority'),
      cert: readFlagFile(f.clientCertificate, 'kubelet-client-certificate'),
      key: readFlagFile(f.clientKey, 'kubelet-client-key'),
    };
  }

  /** The server's 'upgrade' listener: such requests go through `handle` like any other. */
  upgradeListener(handle: (req: IncomingMessage, res: ServerResponse) => void) {
    return upgradeListener(handle, this.sockets);
  }

  close(): void {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }
}

const proxyMethods = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
const streamSubresources = new Set(['exec', 'attach', 'portforward']);

/** Whether kube routes this method of this subresource to a connect handler (others keep their 404/405). */
export function servesConnect(def: ResourceDefinition, subresource: string, method: string): boolean {
  if (def.group !== '' || def.customResource) return false;
  if (def.resource === 'pods') {
    if (subresource === 'log') return method === 'GET';
    if (streamSubresources.has(subresource)) return method === 'GET' || method === 'POST';
  }
  if (subresource === 'proxy' && (def.resource === 'pods' || def.resource === 'services' || def.resource === 'nodes')) return proxyMethods.has(method);
  return false;
}

export async function serveConnect(s: RequestScope, h: ConnectHandler): Promise<void> {
  if (s.info.subresource === 'log') return serveLog(s, h);
  // ConnectResource: a dry run is refused before anything else.
  if (s.query.getAll('dryRun').length > 0) throw newBadRequest('dryRun is not supported');
  if (s.info.subresource === 'proxy') return serveProxy(s, h);
  return serveStream(s, h);
}

const getPod = async (s: RequestScope, name: string) => (await s.store.get(s.info.namespace, name)).object as Pod;

/** LogREST.Get behind GetResourceWithOptions. */
async function serveLog(s: RequestScope, h: ConnectHandler): Promise<void> {
  const opts = decodePodLogOptions(s.query);
  validatePodLogOptions(s.info.name, opts);
  const pod = await getPod(s, s.info.name);
  const where = await logLocation(h.lookup, pod, opts.container, kubeletLogQuery(opts));
  const location = 'location' in where ? where.location : undefined;
  await streamLog(s.req, s.res, location, kubeletBackend(h.kubelet, opts.insecureSkipTLSVerifyBackend), s.info.name);
}

/**
 * CONNECT admission as ConnectResource runs it: the mutating then the validating phase over
 * the options object. Kube's default plugins do nothing on CONNECT; webhooks and
 * ValidatingAdmissionPolicies whose rules name CONNECT on the subresource see it.
 */
async function admitConnect(s: RequestScope, h: ConnectHandler, obj: Record<string, unknown>): Promise<Record<string, unknown>> {
  const dyn = h.host.dynamicAdmission;
  if (!dyn.active()) return obj;
  const kind = s.def.subresources?.find((r) => r.name === s.info.subresource)?.kind ?? s.def.kind;
  const attrs = {
    operation: 'CONNECT', def: { ...s.def, kind }, namespace: s.info.namespace, name: s.info.name, subresource: s.info.subresource,
    obj: obj as KubeObject, dryRun: false, user: s.user, options: null, warn: (m: string) => addWarnings(s.res, [m]),
  } as unknown as DynamicAdmissionAttributes;
  await dyn.mutate(attrs);
  await dyn.validate(attrs);
  return (attrs.obj ?? obj) as Record<string, unknown>;
}

/**
 * ensureAuthorizedForVerb: an upgrade asked with GET (websockets) must also be allowed to
 * `create` the subresource, as the SPDY POST always was; refused with the authorizer's reason.
 */
async function ensureCreateAllowed(s: RequestScope, h: ConnectHandler): Promise<void> {
  const authorizer = h.host.authorizer?.();
  if (s.info.verb === 'create' || !authorizer || s.user.groups.includes(systemPrivilegedGroup)) return;
  const { decision, reason } = await authorizer.authorize(resourceAttributes(s.user, { ...s.info, verb: 'create' }, s.query));
  if (decision !== 'Allow') throw newForbidden({ group: s.info.apiGroup, resource: s.info.resource }, s.info.name, reason);
}

/** ExecREST, AttachREST and PortForwardREST: the kubelet's /exec, /attach or /portForward, upgrade required. */
async function serveStream(s: RequestScope, h: ConnectHandler): Promise<void> {
  const sub = s.info.subresource;
  let location: (pod: Pod) => Promise<Location>;
  if (sub === 'portforward') {
    const ports = decodePortForwardPorts(s.query);
    const admitted = await admitConnect(s, h, { kind: 'PodPortForwardOptions', apiVersion: 'v1', ...(ports.length > 0 ? { ports } : {}) });
    const admittedPorts = Array.isArray(admitted.ports) ? (admitted.ports as number[]) : ports;
    location = (pod) => streamLocation(h.lookup, pod, s.info.name, 'portForward', '', kubeletPortForwardQuery(admittedPorts));
  } else {
    const kind = sub === 'exec' ? 'PodExecOptions' : 'PodAttachOptions';
    const opts = decodeStreamOptions(s.query, sub === 'exec');
    const admitted = await admitConnect(s, h, streamOptionsObject(kind, opts));
    // What a mutating webhook left of the options is what the kubelet is asked for.
    const o = {
      stdin: admitted.stdin === true, stdout: admitted.stdout === true, stderr: admitted.stderr === true, tty: admitted.tty === true,
      container: typeof admitted.container === 'string' ? admitted.container : '',
      command: Array.isArray(admitted.command) ? (admitted.command as string[]) : [],
    };
    location = (pod) => streamLocation(h.lookup, pod, s.info.name, sub === 'exec' ? 'exec' : 'attach', o.container, kubeletStreamQuery(o));
  }
  await ensureCreateAllowed(s, h);
  const pod = await getPod(s, s.info.name);
  const loc = await location(pod);
  await proxyRequest(s.req, s.res, loc, kubeletBackend(h.kubelet), { upgradeRequired: true, rewrite: false, requestPath: s.info.path, rawQuery: '' });
}

/** The `path` option: the request's path after .../proxy, with its leading and trailing slashes (getRequestOptions). */
function proxySubpath(s: RequestScope): string {
  let p = s.info.parts.slice(3).join('/');
  if (p.length > 0 && !p.startsWith('/')) p = `/${p}`;
  if (s.info.path.endsWith('/') && !p.endsWith('/')) p += '/';
  return p;
}

/** The ProxyREST of pods, services and nodes. */
async function serveProxy(s: RequestScope, h: ConnectHandler): Promise<void> {
  const subpath = proxySubpath(s);
  const optionsKind = { pods: 'PodProxyOptions', services: 'ServiceProxyOptions', nodes: 'NodeProxyOptions' }[s.def.resource] ?? 'PodProxyOptions';
  const admitted = await admitConnect(s, h, { kind: optionsKind, apiVersion: 'v1', ...(subpath ? { path: subpath } : {}) });
  const path = typeof admitted.path === 'string' ? admitted.path : subpath;
  let location: Location;
  let backend: BackendTLS = proxyBackend;
  if (s.def.resource === 'pods') {
    location = await podProxyLocation((name) => getPod(s, name), s.info.name);
  } else if (s.def.resource === 'services') {
    location = await serviceProxyLocation(h.lookup, async (name) => (await s.store.get(s.info.namespace, name)).object, s.info.namespace, s.info.name);
  } else {
    const node = await nodeProxyLocation(h.lookup, s.info.name);
    location = node.location;
    if (node.kubelet) backend = kubeletBackend(h.kubelet);
  }
  location.path = joinPreservingTrailingSlash(location.path, path);
  const url = s.req.url ?? '';
  const rawQuery = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  await proxyRequest(s.req, s.res, location, backend, { upgradeRequired: false, rewrite: true, requestPath: s.info.path, rawQuery });
}
