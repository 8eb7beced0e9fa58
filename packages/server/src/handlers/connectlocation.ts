/**
 * Where a connect request goes, as kube 1.35's registries work it out: the pod strategy's
 * LogLocation, streamLocation (exec, attach), PortForwardLocation and ResourceLocation (proxy)
 * with validateContainer; the kubelet's NodeConnectionInfoGetter (preferred address types, the
 * port from status.daemonEndpoints); the node and service ResourceLocations. Every refusal is
 * kube's Status, with its message.
 */
import { isIP } from 'node:net';
import { lookup as dnsLookup } from 'node:dns/promises';
import { newBadRequest, newNotFound, newServiceUnavailable, newUntypedError } from '@windlass/machinery';
import type { AdmissionLookup, KubeObject } from '../registry/types.js';
import { goPathClean } from '../gopath.js';

type Lookup = (group: string, resource: string) => AdmissionLookup | undefined;

/** kube-apiserver's --kubelet-preferred-address-types default. */
export const defaultPreferredAddressTypes = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'];
/** ports.KubeletPort: --kubelet-port's default, for nodes that report no daemon endpoint. */
export const defaultKubeletPort = 10250;

interface Container { name: string; ports?: Array<{ containerPort?: number }> }
export type Pod = KubeObject & {
  spec?: { nodeName?: string; containers?: Container[]; initContainers?: Container[]; ephemeralContainers?: Container[] };
  status?: { podIPs?: Array<{ ip?: string }> };
};

/** A parsed location: scheme (empty: http), host:port, path and raw query. */
export interface Location {
  scheme: string;
  host: string;
  path: string;
  query: string;
}

/** Where the kubelet of a node is reached (kube's client.ConnectionInfo). */
export interface ConnectionInfo {
  scheme: 'https';
  hostname: string;
  port: string;
}

/** net.JoinHostPort. */
export function joinHostPort(host: string, port: string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** utilnet.SplitSchemeNamePort: "name", "name:port" or "scheme:name:port" with scheme http, https or empty. */
export function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  let scheme = '';
  let name: string;
  let port = '';
  if (parts.length === 1) name = parts[0];
  else if (parts.length === 2) [name, port] = parts;
  else if (parts.length === 3) [scheme, name, port] = parts;
  else return undefined;
  if (name.length === 0 || !['', 'http', 'https'].includes(scheme)) return undefined;
  return { scheme, name, port };
}

/** podutil.VisitContainers order: init containers, containers, ephemeral containers. */
function containerNames(pod: Pod): string[] {
  return [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? []), ...(pod.spec?.ephemeralContainers ?? [])].map((c) => c.name);
}

/** kube's validateContainer: the container named, or the pod's only one. */
export function validateContainer(container: string, pod: Pod): string {
  const name = pod.metadata.name ?? '';
  if (container === '') {
    const containers = pod.spec?.containers ?? [];
    if (containers.length === 1) return containers[0].name;
    if (containers.length === 0) throw newBadRequest(`a container name must be specified for pod ${name}`);
    // Go's %s of a []string.
    throw newBadRequest(`a container name must be specified for pod ${name}, choose one of: [${containerNames(pod).join(' ')}]`);
  }
  if (!containerNames(pod).includes(container)) throw newBadRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}

/** Go's %v of a []v1.NodeAddress, as NoMatchError prints it. */
function goAddresses(addresses: Array<{ type?: string; address?: string }>): string {
  return `[${addresses.map((a) => `{${a.type ?? ''} ${a.address ?? ''}}`).join(' ')}]`;
}

/**
 * NodeConnectionInfoGetter.GetConnectionInfo: the node (404 when missing), its first address of
 * the preferred types (kube's NoMatchError otherwise, a 500 without a reason), and the port
 * the kubelet reported, else the default.
 */
export async function connectionInfo(lookup: Lookup, nodeName: string, preferred = defaultPreferredAddressTypes): Promise<ConnectionInfo> {
  const node = await lookup('', 'nodes')?.get('', nodeName);
  if (!node) throw newNotFound({ group: '', resource: 'nodes' }, nodeName);
  const status = (node as { status?: { addresses?: Array<{ type?: string; address?: string }>; daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } } }).status;
  const addresses = status?.addresses ?? [];
  let hostname: string | undefined;
  for (const type of preferred) {
    hostname = addresses.find((a) => a.type === type)?.address;
    if (hostname !== undefined) break;
  }
  if (hostname === undefined) throw newUntypedError(`no preferred addresses found; known addresses: ${goAddresses(addresses)}`);
  const reported = status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 0;
  return { scheme: 'https', hostname, port: String(reported > 0 ? reported : defaultKubeletPort) };
}

/** LogLocation: undefined for a pod not yet on a node (kube streams nothing then). */
export async function logLocation(lookup: Lookup, pod: Pod, container: string, query: string): Promise<{ location: Location; container: string } | { container: string }> {
  const chosen = validateContainer(container, pod);
  const nodeName = pod.spec?.nodeName;
  if (!nodeName) return { container: chosen };
  const info = await connectionInfo(lookup, nodeName);
  return { container: chosen, location: { scheme: info.scheme, host: joinHostPort(info.hostname, info.port), path: `/containerLogs/${pod.metadata.namespace}/${pod.metadata.name}/${chosen}`, query } };
}

/** streamLocation (exec, attach) and PortForwardLocation: a pod without a node is a 400. */
export async function streamLocation(lookup: Lookup, pod: Pod, name: string, kind: 'exec' | 'attach' | 'portForward', container: string, query: string): Promise<Location> {
  const chosen = kind === 'portForward' ? '' : validateContainer(container, pod);
  const nodeName = pod.spec?.nodeName;
  if (!nodeName) throw newBadRequest(`pod ${name} does not have a host assigned`);
  const info = await connectionInfo(lookup, nodeName);
  const path = kind === 'portForward' ? `/portForward/${pod.metadata.namespace}/${pod.metadata.name}` : `/${kind}/${pod.metadata.namespace}/${pod.metadata.name}/${chosen}`;
  return { scheme: info.scheme, host: joinHostPort(info.hostname, info.port), path, query };
}

/** net.IP.IsGlobalUnicast of a textual address (false for anything that does not parse). */
export function isGlobalUnicast(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) {
    const [a, b, c, d] = ip.split('.').map(Number);
    if (a === 0 && b === 0 && c === 0 && d === 0) return false;
    if (a === 255 && b === 255 && c === 255 && d === 255) return false;
    if (a === 127) return false;
    if (a >= 224 && a <= 239) return false;
    if (a === 169 && b === 254) return false;
    return true;
  }
  if (family === 6) {
    const lower = ip.toLowerCase();
    if (lower === '::' || lower === '::1') return false;
    if (lower.startsWith('ff')) return false;
    if (/^fe[89ab]/.test(lower)) return false;
    const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    if (v4) return isGlobalUnicast(v4[1]);
    return true;
  }
  return false;
}

/** The pod strategy's ResourceLocation: "name", "name:port" or "scheme:name:port" on the pod's primary IP. */
export async function podProxyLocation(getPod: (name: string) => Promise<Pod>, id: string): Promise<Location> {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw newBadRequest(`invalid pod request ${JSON.stringify(id)}`);
  const pod = await getPod(parsed.name);
  let port = parsed.port;
  // The first container port declared, when the request names none.
  if (port === '') {
    for (const c of pod.spec?.containers ?? []) {
      if (c.ports && c.ports.length > 0) {
        port = String(c.ports[0].containerPort ?? 0);
        break;
      }
    }
  }
  const podIP = pod.status?.podIPs?.[0]?.ip ?? '';
  if (!isGlobalUnicast(podIP)) throw newBadRequest('address not allowed');
  const host = port === '' ? (podIP.includes(':') ? `[${podIP}]` : podIP) : joinHostPort(podIP, port);
  return { scheme: parsed.scheme, host, path: '', query: '' };
}

/**
 * The node registry's ResourceLocation: the kubelet when no port or the kubelet's port is
 * asked for, otherwise the requested port, only when the node's address is global unicast
 * (IsProxyableHostname).
 */
export async function nodeProxyLocation(lookup: Lookup, id: string): Promise<{ location: Location; kubelet: boolean }> {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw newBadRequest(`invalid node request ${JSON.stringify(id)}`);
  const info = await connectionInfo(lookup, parsed.name);
  if (parsed.port === '' || parsed.port === info.port) {
    return { location: { scheme: info.scheme, host: joinHostPort(info.hostname, info.port), path: '', query: '' }, kubelet: true };
  }
  await proxyableHostname(info.hostname);
  return { location: { scheme: parsed.scheme, host: joinHostPort(info.hostname, parsed.port), path: '', query: '' }, kubelet: false };
}

/** proxyutil.IsProxyableHostname: every address the name resolves to must be global unicast. */
async function proxyableHostname(hostname: string): Promise<void> {
  let addresses: string[];
  if (isIP(hostname) !== 0) addresses = [hostname];
  else {
    try {
      addresses = (await dnsLookup(hostname, { all: true })).map((a) => a.address);
    } catch {
      throw newBadRequest(`lookup ${hostname}: no such host`);
    }
  }
  if (addresses.length === 0) throw newBadRequest('No addresses for hostname');
  if (addresses.some((a) => !isGlobalUnicast(a))) throw newBadRequest('address not allowed');
}

type Endpoints = KubeObject & { subsets?: Array<{ addresses?: Array<{ ip?: string; targetRef?: { kind?: string; namespace?: string; name?: string } }>; ports?: Array<{ name?: string; port?: number }> }> };
type EndpointSlice = KubeObject & { addressType?: string; endpoints?: Array<{ addresses?: string[]; conditions?: { ready?: boolean | null } }>; ports?: Array<{ name?: string | null; port?: number | null }> };

const pick = <T>(items: T[]): T[] => {
  const offset = Math.floor(Math.random() * items.length);
  return items.map((_, i) => items[(offset + i) % items.length]);
};

/** isValidAddress (kube 1.35): the address's targetRef is a pod in the namespace that has that IP. */
async function isValidAddress(lookup: Lookup, namespace: string, addr: { ip?: string; targetRef?: { namespace?: string; name?: string } }): Promise<boolean> {
  if (!addr.targetRef || addr.targetRef.namespace !== namespace) return false;
  const pod = (await lookup('', 'pods')?.get(namespace, addr.targetRef.name ?? '')) as Pod | undefined;
  return (pod?.status?.podIPs ?? []).some((p) => p.ip === addr.ip);
}

/**
 * The service registry's ResourceLocation: a port number names the service port (503 when the
 * Service has none), then a random ready address serving that port name. Kube 1.35 reads the
 * v1 Endpoints (404 when there are none; addresses must point at their pod); Windlass runs no
 * endpoints controller to mirror EndpointSlices into Endpoints, so a Service with no Endpoints
 * but EndpointSlices is served from its slices, as kube reads them from 1.36 on.
 */
export async function serviceProxyLocation(lookup: Lookup, getService: (name: string) => Promise<KubeObject>, namespace: string, id: string): Promise<Location> {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw newBadRequest(`invalid service request ${JSON.stringify(id)}`);
  const { scheme, name } = parsed;
  let portName = parsed.port;
  if (/^[+-]?\d+$/.test(portName)) {
    const portNum = Number(portName);
    const svc = (await getService(name)) as KubeObject & { spec?: { ports?: Array<{ name?: string; port?: number }> } };
    const found = svc.spec?.ports?.find((p) => p.port === portNum);
    if (!found) throw newServiceUnavailable(`no service port ${portNum} found for service ${JSON.stringify(name)}`);
    portName = found.name ?? '';
  }
  const endpoints = (await lookup('', 'endpoints')?.get(namespace, name)) as Endpoints | undefined;
  if (endpoints) {
    const subsets = endpoints.subsets ?? [];
    if (subsets.length === 0) throw newServiceUnavailable(`no endpoints available for service ${JSON.stringify(name)}`);
    for (const ss of pick(subsets)) {
      const addresses = ss.addresses ?? [];
      if (addresses.length === 0) continue;
      for (const port of ss.ports ?? []) {
        if ((port.name ?? '') !== portName) continue;
        for (const addr of pick(addresses)) {
          if (!(await isValidAddress(lookup, namespace, addr))) continue;
          return { scheme, host: joinHostPort(addr.ip ?? '', String(port.port ?? 0)), path: '', query: '' };
        }
      }
    }
    throw newServiceUnavailable(`no endpoints available for service ${JSON.stringify(id)}`);
  }
  const slices = ((await lookup('discovery.k8s.io', 'endpointslices')?.list(namespace)) ?? [])
    .filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === name) as EndpointSlice[];
  if (slices.length === 0) throw newNotFound({ group: '', resource: 'endpoints' }, name);
  for (const slice of pick(slices)) {
    for (const port of slice.ports ?? []) {
      if ((port.name ?? '') !== portName || port.port === undefined || port.port === null) continue;
      for (const ep of pick(slice.endpoints ?? [])) {
        if (ep.conditions?.ready === false) continue;
        const ip = ep.addresses?.[0];
        if (ip) return { scheme, host: joinHostPort(ip, String(port.port)), path: '', query: '' };
      }
    }
  }
  throw newServiceUnavailable(`no endpoints available for service ${JSON.stringify(name)}`);
}

/** net.JoinPreservingTrailingSlash(location.Path, subpath), the proxy's path (path.Join cleans it). */
export function joinPreservingTrailingSlash(base: string, sub: string): string {
  const joined = [base, sub].filter((e) => e !== '').join('/');
  let result = joined === '' ? '' : goPathClean(joined);
  const last = [base, sub].reverse().find((e) => e !== '');
  if (last !== undefined && last.endsWith('/') && !result.endsWith('/')) result += '/';
  return result;
}

