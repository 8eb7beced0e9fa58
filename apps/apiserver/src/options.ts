/**
 * What `windlass` can be told: its commands, feature gates, authorization modes and options, with
 * kube-apiserver's defaults where kube has the option.
 */
import { networkInterfaces, availableParallelism } from 'node:os';

export type Command = 'start' | 'compact' | 'help' | 'version';
export type StorageKind = 'embedded' | 'etcd';

export interface FeatureGateSpec {
  default: boolean;
  stage: 'ALPHA' | 'BETA' | 'GA';
}

/** The feature gates Windlass knows, with kube's defaults and maturity. */
export const FEATURE_GATES = {
  APIResponseCompression: { default: true, stage: 'BETA' },
  AllowUnsafeMalformedObjectDeletion: { default: false, stage: 'ALPHA' },
  CBORServingAndStorage: { default: false, stage: 'ALPHA' },
} as const satisfies Record<string, FeatureGateSpec>;

export type FeatureGateName = keyof typeof FEATURE_GATES;

/** kube's --authorization-mode names Windlass serves (the server's AuthorizationMode). */
export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'RBAC'] as const;
export type AuthorizationModeName = (typeof AUTHORIZATION_MODES)[number];
/** kube's other modes: refused with the reason rather than as unknown names. */
export const UNSUPPORTED_AUTHORIZATION_MODES: Record<string, string> = {
  Node: 'Windlass builds no node graph for the Node authorizer (kubelets are authorized by RBAC alone)',
  Webhook: 'Windlass does not call authorization webhooks',
  ABAC: 'Windlass does not read ABAC policy files',
};
export type FeatureGates = Record<FeatureGateName, boolean>;

/** kube's --endpoint-reconciler-type values Windlass serves. */
export const ENDPOINT_RECONCILER_TYPES = ['lease', 'none'] as const;
export type EndpointReconcilerTypeName = (typeof ENDPOINT_RECONCILER_TYPES)[number];

const isUnspecifiedIP = (ip: string) => ip === '0.0.0.0' || ip === '::';

/**
 * The address this replica lists in the `kubernetes` Endpoints, as kube-apiserver picks it:
 * --advertise-address; else --bind-address when it names one address; else (0.0.0.0 or ::) the
 * host's first non-loopback IPv4 address, in os.networkInterfaces() order (kube asks the default
 * route's interface). Unlike kube, a loopback --bind-address (Windlass's default) is advertised
 * as it is rather than as the host's address, which nothing could connect to: kube's Endpoints
 * validation refuses loopback addresses, so such a replica records no endpoints.
 */
export function advertiseAddress(o: Pick<ServerOptions, 'advertiseAddress' | 'bindAddress'>, interfaces = networkInterfaces()): string | undefined {
  if (o.advertiseAddress && !isUnspecifiedIP(o.advertiseAddress)) return o.advertiseAddress;
  if (!isUnspecifiedIP(o.bindAddress)) return o.bindAddress;
  for (const addrs of Object.values(interfaces)) {
    const v4 = addrs?.find((a) => a.family === 'IPv4' && !a.internal);
    if (v4) return v4.address;
  }
  return undefined;
}

export interface ServerOptions {
  dataDir: string;
  bindAddress: string;
  /** 0 asks the OS for a free port. */
  securePort: number;
  storage: StorageKind;
  etcdServers: string[];
  etcdPrefix: string;
  /** kube's --etcd-cafile, --etcd-certfile, --etcd-keyfile: TLS to https:// etcd servers. */
  etcdCAFile?: string;
  etcdCertFile?: string;
  etcdKeyFile?: string;
  /** Every known gate, defaults filled in. */
  featureGates: FeatureGates;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  tokenAuthFile?: string;
  /** kube's --authorization-mode, in order; Windlass's default is RBAC (kubeadm's and kind's clusters, less Node). */
  authorizationModes: AuthorizationModeName[];
  /** kube's --anonymous-auth: requests without credentials are system:anonymous (reset to false under AlwaysAllow, as kube). */
  anonymousAuth: boolean;
  /** The SQLite file of embedded storage (`:memory:` for none); unset means inside dataDir. */
  embeddedPath?: string;
  /** kube's --etcd-compaction-interval, in ms; 0 disables periodic compaction. */
  etcdCompactionIntervalMs: number;
  /** How far back watches can resume from the watch cache's event history, in ms. */
  watchCacheHistoryWindowMs: number;
  /** How long snapshots for Exact and continuation lists are kept, in ms. */
  watchCacheSnapshotWindowMs: number;
  /**
   * Processes serving --secure-port, each a full replica. 1 serves from this process;
   * unset on the command line, one per core with etcd and 1 with embedded storage.
   */
  workers: number;
  /** kube's --max-requests-inflight: read-only requests in flight before 429; 0: no limit. */
  maxRequestsInflight: number;
  /** kube's --max-mutating-requests-inflight: mutating requests in flight before 429; 0: no limit. */
  maxMutatingRequestsInflight: number;
  /** kube's --request-timeout in ms: non-long-running requests are answered 504 after it. */
  requestTimeoutMs: number;
  /** kube's --shutdown-delay-duration in ms: how long readyz fails while requests are still served before shutdown. */
  shutdownDelayDurationMs: number;
  /** kube's --service-cluster-ip-range: the CIDR Services' ClusterIPs are allocated from. */
  serviceClusterIPRange: string;
  /** kube's --service-node-port-range: the ports NodePorts are allocated from, inclusive. */
  serviceNodePortRange: { base: number; size: number };
  /** kube's --admission-control-config-file: an AdmissionConfiguration with the plugins' configuration. */
  admissionControlConfigFile?: string;
  /** kube's --advertise-address; unset (or unspecified): see advertiseAddress(). */
  advertiseAddress?: string;
  /** kube's --endpoint-reconciler-type: lease (the default) or none. */
  endpointReconcilerType: EndpointReconcilerTypeName;
  /** kube's --client-ca-file: client certificates chaining to it authenticate; unset with generated credentials: the generated CA. */
  clientCAFile?: string;
  /** kube's --service-account-issuer (repeatable): the first signs, all are accepted. */
  serviceAccountIssuers: string[];
  /** kube's --service-account-key-file (repeatable): keys that verify tokens; none: the signing key's. */
  serviceAccountKeyFiles: string[];
  /** kube's --service-account-signing-key-file; unset: a key generated in --data-dir (pki/sa.key). */
  serviceAccountSigningKeyFile?: string;
  /** kube's --api-audiences; none: the issuers. */
  apiAudiences: string[];
  /** kube's --service-account-max-token-expiration in ms; 0: no limit. */
  serviceAccountMaxTokenExpirationMs: number;
  /** kube's --service-account-extend-token-expiration. */
  serviceAccountExtendTokenExpiration: boolean;
  /** kube's --service-account-jwks-uri. */
  serviceAccountJWKSURI?: string;
  /** kube's --kubelet-certificate-authority, --kubelet-client-certificate, --kubelet-client-key: TLS to kubelets (logs, exec, nodes/proxy). */
  kubeletCertificateAuthority?: string;
  kubeletClientCertificate?: string;
  kubeletClientKey?: string;
  /** kube's --proxy-client-cert-file and --proxy-client-key-file: the aggregator's client certificate. */
  proxyClientCertFile?: string;
  proxyClientKeyFile?: string;
  /** kube's --requestheader-client-ca-file and --requestheader-allowed-names, published for aggregated servers. */
  requestHeaderClientCAFile?: string;
  requestHeaderAllowedNames: string[];
  /** kube's --requestheader-username-headers, -uid-headers, -group-headers, -extra-headers-prefix; unset: kubeadm's. */
  requestHeaderUsernameHeaders?: string[];
  requestHeaderUIDHeaders?: string[];
  requestHeaderGroupHeaders?: string[];
  requestHeaderExtraHeaderPrefixes?: string[];
}

/** kubeadm's issuer (and API audience), Windlass's when --service-account-issuer is not given. */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** The flags of `windlass compact`. */
export interface CompactOptions {
  /** Unset: $KUBECONFIG, else ./.windlass/kubeconfig. */
  kubeconfig?: string;
  revision: number;
}

export interface ParsedCommand {
  command: Command;
  options: ServerOptions;
  /** Set for the compact command. */
  compact?: CompactOptions;
}

/** A command line the user must fix; the caller prints the message and usage() and exits 2. */
export class FlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FlagError';
  }
}

export const PROGRAM = 'windlass';

export function defaultFeatureGates(): FeatureGates {
  const gates = {} as FeatureGates;
  for (const name of Object.keys(FEATURE_GATES) as FeatureGateName[]) gates[name] = FEATURE_GATES[name].default;
  return gates;
}

export function defaultServerOptions(): ServerOptions {
  return {
    dataDir: './.windlass',
    // Loopback, unlike kube-apiserver's 0.0.0.0: a development server reachable from the
    // whole network by default would be a surprise. --bind-address=0.0.0.0 opts in.
    bindAddress: '127.0.0.1',
    securePort: 6443,
    storage: 'embedded',
    etcdServers: [],
    etcdPrefix: '/registry',
    featureGates: defaultFeatureGates(),
    // Unlike kube-apiserver's AlwaysAllow: a Kubernetes user expects a cluster that checks
    // RBAC, as kubeadm, kind and managed clusters do; the admin kubeconfig is system:masters.
    authorizationModes: ['RBAC'],
    anonymousAuth: true,
    etcdCompactionIntervalMs: 5 * 60 * 1000,
    watchCacheHistoryWindowMs: 5 * 60 * 1000,
    watchCacheSnapshotWindowMs: 75 * 1000,
    // For the default storage, embedded; validate() picks one per core for etcd.
    workers: 1,
    maxRequestsInflight: 400,
    maxMutatingRequestsInflight: 200,
    requestTimeoutMs: 60_000,
    shutdownDelayDurationMs: 0,
    serviceClusterIPRange: '10.96.0.0/12',
    serviceNodePortRange: { base: 30000, size: 2768 },
    endpointReconcilerType: 'lease',
    // kube requires the flag; Windlass starts without it, with kubeadm's issuer.
    serviceAccountIssuers: [DEFAULT_SERVICE_ACCOUNT_ISSUER],
    serviceAccountKeyFiles: [],
    apiAudiences: [],
    requestHeaderAllowedNames: [],
    serviceAccountMaxTokenExpirationMs: 0,
    serviceAccountExtendTokenExpiration: true,
  };
}

/** --workers when the command line does not give it. */
export function defaultWorkers(storage: StorageKind): number {
  // The SQLite file has one owner, so embedded storage serves from one process.
  return storage === 'etcd' ? availableParallelism() : 1;
}

/** Beyond this a typo is likelier than a machine; each worker holds a full watch cache. */
export const maxWorkers = 256;
