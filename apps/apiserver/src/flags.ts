/**
 * Command-line parsing for `windlass`. Flag names, syntax and messages follow
 * kube-apiserver (spf13/pflag under cobra) wherever kube has the flag, so that
 * invocations and scripts carry over; Windlass-only flags use the same style.
 */
import { isIP } from 'node:net';
import { AUTHORIZATION_MODES, type Command, type CompactOptions, DEFAULT_SERVICE_ACCOUNT_ISSUER, ENDPOINT_RECONCILER_TYPES, type EndpointReconcilerTypeName, FlagError, PROGRAM, type ParsedCommand, type ServerOptions, advertiseAddress, defaultServerOptions, defaultWorkers, maxWorkers } from './options.js';
import { applyFeatureGates, featureGatesUsage, formatDuration, nonEmpty, parseAuthorizationModes, parseBool, parseDuration, parseEtcdServers, parseIssuer, parseNonNegativeInt, parsePort, parsePortRange, parseServiceCIDR, parseStringList } from './flagvalues.js';

export * from './options.js';

interface FlagSpec {
  name: string;
  shorthand?: string;
  /** The type word pflag shows in usage; empty for booleans. */
  type: string;
  /** As pflag prints it in usage ("(default …)"); undefined shows none. */
  defaultText?: string;
  usage: string;
  /** Booleans take no separate value: `--help`, or `--help=false`. */
  bool?: boolean;
  /** Applies a value; a thrown string becomes pflag's "invalid argument" message. */
  set(state: ParseState, value: string): void;
}

interface ParseState {
  options: ServerOptions;
  compact: Partial<CompactOptions>;
  help: boolean;
  version: boolean;
  /** Which flags appeared, for the cross-flag checks. */
  seen: Set<string>;
}

const defaults = defaultServerOptions();

type RequestHeaderNamesField = 'requestHeaderUsernameHeaders' | 'requestHeaderUIDHeaders' | 'requestHeaderGroupHeaders' | 'requestHeaderExtraHeaderPrefixes';

/** A --requestheader-*-headers flag: unset, kubeadm's name rather than kube's empty list. */
function requestHeaderNames(name: string, field: RequestHeaderNamesField, usage: string, kubeadm: string): FlagSpec {
  return {
    name, type: 'strings', defaultText: `[${kubeadm}]`, usage: `${usage} Unlike kube-apiserver (none), kubeadm's name by default.`,
    set(s, v) {
      (s.options[field] ??= []).push(...parseStringList(v));
    },
  };
}

// Sorted by name, as pflag prints them.
const FLAGS: FlagSpec[] = [
  {
    name: 'admission-control-config-file',
    type: 'string',
    usage: 'File with admission control configuration (an AdmissionConfiguration; ResourceQuota reads its limitedResources from it).',
    set(s, v) {
      s.options.admissionControlConfigFile = nonEmpty(v);
    },
  },
  {
    name: 'advertise-address',
    type: 'ip',
    usage: 'The IP address on which to advertise the apiserver to members of the cluster: the kubernetes Endpoints in default list it. This address must be reachable by the rest of the cluster. If blank, the --bind-address will be used; if --bind-address is unspecified, the host\'s first non-loopback IPv4 address. A loopback address (the default --bind-address) is not listed, as kube\'s Endpoints validation refuses it.',
    set(s, v) {
      if (isIP(v) === 0) throw `failed to parse IP: ${JSON.stringify(v)}`;
      s.options.advertiseAddress = v;
    },
  },
  {
    name: 'anonymous-auth',
    type: '',
    bool: true,
    defaultText: String(defaults.anonymousAuth),
    usage: 'Enables anonymous requests to the secure port of the API server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated. Turned off when --authorization-mode includes AlwaysAllow, as kube does.',
    set(s, v) {
      s.options.anonymousAuth = parseBool(v);
    },
  },
  {
    name: 'api-audiences',
    type: 'strings',
    usage: 'Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences. If unset, the values of --service-account-issuer are used.',
    set(s, v) {
      s.options.apiAudiences.push(...parseStringList(v));
    },
  },
  {
    name: 'authorization-mode',
    type: 'strings',
    defaultText: `[${defaults.authorizationModes.join(',')}]`,
    usage: `Ordered list of plug-ins to do authorization on secure port. Comma-delimited list of: ${AUTHORIZATION_MODES.join(',')}. The first to allow a request allows it; members of system:masters (the generated admin token) are always allowed. Unlike kube-apiserver (AlwaysAllow), the default checks RBAC, with kube's bootstrap roles.`,
    set(s, v) {
      // A string slice: the first use replaces the default, later ones add to it.
      const modes = parseAuthorizationModes(v);
      s.options.authorizationModes = s.seen.has('authorization-mode') ? parseAuthorizationModes([...s.options.authorizationModes, ...modes].join(',')) : modes;
    },
  },
  {
    name: 'bind-address',
    type: 'ip',
    defaultText: defaults.bindAddress,
    usage:
      'The IP address on which to listen for the --secure-port port. Unlike kube-apiserver (0.0.0.0), the default is loopback only; use 0.0.0.0 or :: to listen on all interfaces.',
    set(s, v) {
      if (isIP(v) === 0) throw `failed to parse IP: ${JSON.stringify(v)}`;
      s.options.bindAddress = v;
    },
  },
  {
    name: 'client-ca-file',
    type: 'string',
    usage: 'If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate (groups: its Organizations). Unset with generated credentials, the generated CA is used, and admin.conf in --data-dir holds a system:masters client certificate.',
    set(s, v) {
      s.options.clientCAFile = nonEmpty(v);
    },
  },
  {
    name: 'data-dir',
    type: 'string',
    defaultText: JSON.stringify(defaults.dataDir),
    usage: 'Directory for persistent state: the generated CA and serving certificate (pki/), the admin token, and embedded storage.',
    set(s, v) {
      s.options.dataDir = nonEmpty(v);
    },
  },
  {
    name: 'embedded-path',
    type: 'string',
    usage: 'SQLite file for --storage=embedded, or :memory: for storage that is lost on exit. Defaults to a file inside --data-dir.',
    set(s, v) {
      s.options.embeddedPath = nonEmpty(v);
    },
  },
  {
    name: 'endpoint-reconciler-type',
    type: 'string',
    defaultText: JSON.stringify(defaults.endpointReconcilerType),
    usage: `Use an endpoint reconciler (${ENDPOINT_RECONCILER_TYPES.join(', ')}): lease keeps the kubernetes Endpoints listing every replica that renewed its lease in the last 15s; none leaves them alone.`,
    set(s, v) {
      if (v === 'master-count') throw `master-count is not supported by ${PROGRAM}: replicas do not know their count (--apiserver-count); use lease`;
      if (!(ENDPOINT_RECONCILER_TYPES as readonly string[]).includes(v)) throw `unknown endpoint reconciler type: ${v}`;
      s.options.endpointReconcilerType = v as EndpointReconcilerTypeName;
    },
  },
  {
    name: 'etcd-cafile',
    type: 'string',
    usage: 'SSL Certificate Authority file used to secure etcd communication.',
    set(s, v) {
      s.options.etcdCAFile = nonEmpty(v);
    },
  },
  {
    name: 'etcd-certfile',
    type: 'string',
    usage: 'SSL certification file used to secure etcd communication.',
    set(s, v) {
      s.options.etcdCertFile = nonEmpty(v);
    },
  },
  {
    name: 'etcd-compaction-interval',
    type: 'duration',
    defaultText: formatDuration(defaults.etcdCompactionIntervalMs),
    usage: 'The interval of compaction requests. If 0, the compaction request from apiserver is disabled. Applies to the embedded store too.',
    set(s, v) {
      const ms = parseDuration(v);
      if (ms < 0) throw 'must not be negative';
      s.options.etcdCompactionIntervalMs = ms;
    },
  },
  {
    name: 'etcd-keyfile',
    type: 'string',
    usage: 'SSL key file used to secure etcd communication.',
    set(s, v) {
      s.options.etcdKeyFile = nonEmpty(v);
    },
  },
  {
    name: 'etcd-prefix',
    type: 'string',
    defaultText: JSON.stringify(defaults.etcdPrefix),
    usage: 'The prefix to prepend to all resource paths in etcd.',
    set(s, v) {
      s.options.etcdPrefix = nonEmpty(v);
    },
  },
  {
    name: 'etcd-servers',
    type: 'strings',
    usage: 'List of etcd servers to connect with (scheme://ip:port), comma separated. Required with --storage=etcd.',
    set(s, v) {
      // A string slice, as in pflag: repeating the flag adds servers.
      s.options.etcdServers.push(...parseEtcdServers(v));
    },
  },
  {
    name: 'feature-gates',
    type: 'mapStringBool',
    usage: featureGatesUsage(),
    set(s, v) {
      // Repeated flags merge, as kube's MapStringBool does.
      applyFeatureGates(s.options.featureGates, v);
    },
  },
  {
    name: 'help',
    shorthand: 'h',
    type: '',
    bool: true,
    usage: `help for ${PROGRAM}`,
    set(s, v) {
      s.help = parseBool(v);
    },
  },
  {
    name: 'kubelet-certificate-authority',
    type: 'string',
    usage: 'Path to a cert file for the certificate authority. Without it kubelets\' serving certificates are not verified, as kube-apiserver does.',
    set(s, v) {
      s.options.kubeletCertificateAuthority = nonEmpty(v);
    },
  },
  {
    name: 'kubelet-client-certificate',
    type: 'string',
    usage: 'Path to a client cert file for TLS.',
    set(s, v) {
      s.options.kubeletClientCertificate = nonEmpty(v);
    },
  },
  {
    name: 'kubelet-client-key',
    type: 'string',
    usage: 'Path to a client key file for TLS.',
    set(s, v) {
      s.options.kubeletClientKey = nonEmpty(v);
    },
  },
  {
    name: 'max-mutating-requests-inflight',
    type: 'int',
    defaultText: String(defaults.maxMutatingRequestsInflight),
    usage: 'The maximum number of mutating requests in flight at a given time. When the server exceeds this, it rejects requests (429, Retry-After: 1). Zero for no limit. Watches are not counted; members of system:masters are never rejected.',
    set(s, v) {
      s.options.maxMutatingRequestsInflight = parseNonNegativeInt(v, 'max-mutating-requests-inflight');
    },
  },
  {
    name: 'service-account-extend-token-expiration',
    type: '',
    bool: true,
    defaultText: 'true',
    usage: 'Turns on projected service account expiration extension during token generation, which helps safe transition from legacy token to bound service account token feature. If this flag is enabled, admission injected tokens would be extended up to 1 year to prevent unexpected failure during transition, ignoring value of service-account-max-token-expiration.',
    set(s, v) {
      s.options.serviceAccountExtendTokenExpiration = parseBool(v);
    },
  },
  {
    name: 'service-account-issuer',
    type: 'stringArray',
    defaultText: JSON.stringify(DEFAULT_SERVICE_ACCOUNT_ISSUER),
    usage: 'Identifier of the service account token issuer. The issuer will assert this identifier in "iss" claim of issued tokens. This value is a string or URI. If this option is not a valid URI per the OpenID Discovery 1.0 spec, the ServiceAccountIssuerDiscovery feature will remain disabled. When this flag is specified multiple times, the first is used to generate tokens and all are used to determine which issuers are accepted.',
    set(s, v) {
      // A string array: the first use replaces the default, later ones add to it.
      const known = s.seen.has('service-account-issuer') ? s.options.serviceAccountIssuers : [];
      s.options.serviceAccountIssuers = [...known, parseIssuer(v, known)];
    },
  },
  {
    name: 'service-account-jwks-uri',
    type: 'string',
    usage: 'Overrides the URI for the JSON Web Key Set in the discovery doc served at /.well-known/openid-configuration. Must be an https URL. Defaults to the /openid/v1/jwks path of the server\'s address.',
    set(s, v) {
      let url: URL;
      try {
        url = new URL(v);
      } catch (err) {
        throw `service-account-jwks-uri must be a valid URL: ${(err as Error).message}`;
      }
      if (url.protocol !== 'https:') throw `service-account-jwks-uri requires https scheme, parsed as: ${v}`;
      s.options.serviceAccountJWKSURI = v;
    },
  },
  {
    name: 'service-account-key-file',
    type: 'stringArray',
    usage: 'File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. The specified file can contain multiple keys, and the flag can be specified multiple times with different files. If unspecified, the public key of --service-account-signing-key-file is used.',
    set(s, v) {
      s.options.serviceAccountKeyFiles.push(nonEmpty(v));
    },
  },
  {
    name: 'service-account-max-token-expiration',
    type: 'duration',
    usage: 'The maximum validity duration of a token created by the service account token issuer. If an otherwise valid TokenRequest with a validity duration larger than this value is requested, a token will be issued with a validity duration of this value.',
    set(s, v) {
      const ms = parseDuration(v);
      if (ms !== 0 && (ms < 3_600_000 || ms > 2 ** 32 * 1000)) throw 'the service-account-max-token-expiration must be between 1 hour and 2^32 seconds';
      s.options.serviceAccountMaxTokenExpirationMs = ms;
    },
  },
  {
    name: 'service-account-signing-key-file',
    type: 'string',
    usage: 'Path to the file that contains the current private key of the service account token issuer. The issuer will sign issued ID tokens with this private key. Unset, a key generated in --data-dir (pki/sa.key) is used.',
    set(s, v) {
      s.options.serviceAccountSigningKeyFile = nonEmpty(v);
    },
  },
  {
    name: 'service-cluster-ip-range',
    type: 'string',
    defaultText: defaults.serviceClusterIPRange,
    usage: 'A CIDR notation IP range from which to assign service cluster IPs. The first address is the kubernetes Service\'s.',
    set(s, v) {
      s.options.serviceClusterIPRange = parseServiceCIDR(v);
    },
  },
  {
    name: 'service-node-port-range',
    type: 'portRange',
    defaultText: `${defaults.serviceNodePortRange.base}-${defaults.serviceNodePortRange.base + defaults.serviceNodePortRange.size - 1}`,
    usage: 'A port range to reserve for services with NodePort visibility. This must not overlap with the ephemeral port range on nodes. Example: \'30000-32767\'. Inclusive at both ends of the range.',
    set(s, v) {
      s.options.serviceNodePortRange = parsePortRange(v);
    },
  },
  {
    name: 'proxy-client-cert-file',
    type: 'string',
    usage: 'Client certificate used to prove the identity of the aggregator or kube-apiserver when it must call out during a request. This includes proxying requests to a user api-server and calling out to webhook admission plugins. It is expected that this cert includes a signature from the CA in the --requestheader-client-ca-file flag. That CA is published in the \'extension-apiserver-authentication\' configmap in the kube-system namespace. Without it (and with generated credentials) the data directory\'s pki/front-proxy-client.crt.',
    set(s, v) {
      s.options.proxyClientCertFile = nonEmpty(v);
    },
  },
  {
    name: 'proxy-client-key-file',
    type: 'string',
    usage: 'Private key for the client certificate used to prove the identity of the aggregator or kube-apiserver when it must call out during a request. This includes proxying requests to a user api-server and calling out to webhook admission plugins.',
    set(s, v) {
      s.options.proxyClientKeyFile = nonEmpty(v);
    },
  },
  {
    name: 'requestheader-allowed-names',
    type: 'strings',
    usage: 'List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed. Published in the \'extension-apiserver-authentication\' configmap.',
    set(s, v) {
      s.options.requestHeaderAllowedNames.push(...parseStringList(v));
    },
  },
  {
    name: 'requestheader-client-ca-file',
    type: 'string',
    usage: 'Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. Published in the \'extension-apiserver-authentication\' configmap for aggregated API servers. Without it (and with generated credentials) the data directory\'s pki/front-proxy-ca.crt. The headers: --requestheader-username-headers and the others.',
    set(s, v) {
      s.options.requestHeaderClientCAFile = nonEmpty(v);
    },
  },
  requestHeaderNames('requestheader-extra-headers-prefix', 'requestHeaderExtraHeaderPrefixes', 'List of request header prefixes to inspect. X-Remote-Extra- is suggested.', 'X-Remote-Extra-'),
  requestHeaderNames('requestheader-group-headers', 'requestHeaderGroupHeaders', 'List of request headers to inspect for groups. X-Remote-Group is suggested.', 'X-Remote-Group'),
  requestHeaderNames('requestheader-uid-headers', 'requestHeaderUIDHeaders', 'List of request headers to inspect for UIDs. X-Remote-Uid is suggested.', 'X-Remote-Uid'),
  requestHeaderNames('requestheader-username-headers', 'requestHeaderUsernameHeaders', 'List of request headers to inspect for usernames. X-Remote-User is common.', 'X-Remote-User'),
  {
    name: 'max-requests-inflight',
    type: 'int',
    defaultText: String(defaults.maxRequestsInflight),
    usage: 'The maximum number of non-mutating requests in flight at a given time. When the server exceeds this, it rejects requests (429, Retry-After: 1). Zero for no limit. Watches are not counted; members of system:masters are never rejected.',
    set(s, v) {
      s.options.maxRequestsInflight = parseNonNegativeInt(v, 'max-requests-inflight');
    },
  },
  {
    name: 'request-timeout',
    type: 'duration',
    defaultText: formatDuration(defaults.requestTimeoutMs),
    usage: 'An optional field indicating the duration a handler must keep a request open before timing it out (504). Watches are not subject to it. 0 disables it.',
    set(s, v) {
      const ms = parseDuration(v);
      if (ms < 0) throw '--request-timeout can not be negative value';
      s.options.requestTimeoutMs = ms;
    },
  },
  {
    name: 'secure-port',
    type: 'int',
    defaultText: String(defaults.securePort),
    usage: 'The port on which to serve HTTPS with authentication and authorization. 0 picks a free port.',
    set(s, v) {
      s.options.securePort = parsePort(v);
    },
  },
  {
    name: 'shutdown-delay-duration',
    type: 'duration',
    defaultText: formatDuration(defaults.shutdownDelayDurationMs),
    usage: 'Time to delay the termination. During that time the server keeps serving requests normally. The endpoints /healthz and /livez will return success, but /readyz immediately returns failure. Graceful termination starts after this delay has elapsed. This can be used to allow load balancer to stop sending traffic to this server.',
    set(s, v) {
      const ms = parseDuration(v);
      if (ms < 0) throw '--shutdown-delay-duration can not be negative value';
      s.options.shutdownDelayDurationMs = ms;
    },
  },
  {
    name: 'storage',
    type: 'string',
    defaultText: JSON.stringify(defaults.storage),
    usage: 'Storage backend: "embedded" (SQLite, no other process needed) or "etcd" (see --etcd-servers).',
    set(s, v) {
      if (v !== 'embedded' && v !== 'etcd') throw 'must be one of: embedded, etcd';
      s.options.storage = v;
    },
  },
  {
    name: 'tls-cert-file',
    type: 'string',
    usage:
      'File containing the default x509 Certificate for HTTPS (CA cert, if any, concatenated after server cert). If unset, a CA and serving certificate are generated under --data-dir/pki.',
    set(s, v) {
      s.options.tlsCertFile = nonEmpty(v);
    },
  },
  {
    name: 'tls-private-key-file',
    type: 'string',
    usage: 'File containing the default x509 private key matching --tls-cert-file.',
    set(s, v) {
      s.options.tlsPrivateKeyFile = nonEmpty(v);
    },
  },
  {
    name: 'token-auth-file',
    type: 'string',
    usage: 'If set, the file that will be used to secure the secure port of the API server via token authentication (token,user,uid[,"group1,group2"] per line).',
    set(s, v) {
      s.options.tokenAuthFile = nonEmpty(v);
    },
  },
  {
    name: 'watch-cache-history-window',
    type: 'duration',
    defaultText: formatDuration(defaults.watchCacheHistoryWindowMs),
    usage: 'How long the watch cache keeps events, per resource type, for watches that resume from a resourceVersion. Older resourceVersions get 410 Gone.',
    set(s, v) {
      const ms = parseDuration(v);
      if (ms <= 0) throw 'must be positive';
      s.options.watchCacheHistoryWindowMs = ms;
    },
  },
  {
    name: 'watch-cache-snapshot-window',
    type: 'duration',
    defaultText: formatDuration(defaults.watchCacheSnapshotWindowMs),
    usage: 'How long the watch cache keeps snapshots that serve Exact lists and continuation pages without reading the store (kube: 75s).',
    set(s, v) {
      const ms = parseDuration(v);
      if (ms < 0) throw 'must not be negative';
      s.options.watchCacheSnapshotWindowMs = ms;
    },
  },
  {
    name: 'version',
    type: '',
    bool: true,
    usage: 'Print version information and quit.',
    set(s, v) {
      s.version = parseBool(v);
    },
  },
  {
    name: 'workers',
    type: 'int',
    usage:
      'Number of worker processes serving --secure-port together, each a full replica with its own storage connection and watch cache; 1 serves from a single process. Defaults to one per core with --storage=etcd and to 1 with --storage=embedded, which allows no more: one process owns the SQLite file.',
    set(s, v) {
      const n = /^\d+$/.test(v) ? Number(v) : NaN;
      if (!(n >= 1 && n <= maxWorkers)) throw `must be an integer between 1 and ${maxWorkers}`;
      s.options.workers = n;
    },
  },
];

const HELP_FLAG = FLAGS.find((f) => f.name === 'help')!;

// The flags of `compact`, a client of a running server: none of start's apply.
const COMPACT_FLAGS: FlagSpec[] = [
  HELP_FLAG,
  {
    name: 'kubeconfig',
    type: 'string',
    usage: 'Path to the kubeconfig whose current context names the server, its CA and an admin token. Defaults to $KUBECONFIG, then ./.windlass/kubeconfig.',
    set(s, v) {
      s.compact.kubeconfig = nonEmpty(v);
    },
  },
  {
    name: 'revision',
    type: 'int',
    usage: 'Compact the store up to this revision (required): older revisions can no longer be read or watched from.',
    set(s, v) {
      const n = /^\d+$/.test(v) ? Number(v) : NaN;
      if (!Number.isSafeInteger(n) || n <= 0) throw 'must be a positive integer';
      s.compact.revision = n;
    },
  },
];

interface FlagTable {
  byName: Map<string, FlagSpec>;
  byShorthand: Map<string, FlagSpec>;
}

function flagTable(flags: FlagSpec[]): FlagTable {
  return {
    byName: new Map(flags.map((f) => [f.name, f])),
    byShorthand: new Map(flags.filter((f) => f.shorthand).map((f) => [f.shorthand!, f])),
  };
}

const START_TABLE = flagTable(FLAGS);
const COMPACT_TABLE = flagTable(COMPACT_FLAGS);

function applyFlag(state: ParseState, flag: FlagSpec, value: string, shown: string): void {
  try {
    flag.set(state, value);
  } catch (err) {
    if (typeof err === 'string') throw new FlagError(`invalid argument ${JSON.stringify(value)} for "${shown}" flag: ${err}`);
    throw err;
  }
  state.seen.add(flag.name);
}

/** Parses the flags of a command (start's by default) in pflag's way, returning the positional arguments. */
function parseFlagArgs(args: string[], state: ParseState, table: FlagTable = START_TABLE): string[] {
  const { byName, byShorthand } = table;
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      if (name === '' || name.startsWith('-')) throw new FlagError(`bad flag syntax: ${arg}`);
      const flag = byName.get(name);
      if (!flag) throw new FlagError(`unknown flag: --${name}`);
      let value: string;
      if (eq >= 0) value = arg.slice(eq + 1);
      else if (flag.bool) value = 'true';
      else {
        const next = args[i + 1];
        // pflag would take even `--other-flag` as the value; a forgotten value is the likelier story.
        if (next === undefined || next.startsWith('--') || next === '-h') throw new FlagError(`flag needs an argument: --${name}`);
        value = next;
        i++;
      }
      applyFlag(state, flag, value, `--${name}`);
      continue;
    }
    if (arg.startsWith('-') && arg !== '-') {
      const letter = arg.slice(1, 2);
      const flag = byShorthand.get(letter);
      if (!flag) {
        const hint = arg.length > 2 && byName.has(arg.slice(1)) ? ` (long flags take two dashes: -${arg})` : '';
        throw new FlagError(`unknown shorthand flag: '${letter}' in ${arg}${hint}`);
      }
      if (arg.length > 2 && arg[2] !== '=') throw new FlagError(`unknown shorthand flag: '${arg[2]}' in ${arg}`);
      applyFlag(state, flag, arg.length > 2 ? arg.slice(3) : 'true', `-${letter}`);
      continue;
    }
    positional.push(arg);
  }
  return positional;
}

// Checks that involve more than one flag, made once all flags are known.
function validate(state: ParseState): void {
  const o = state.options;
  if (o.storage === 'etcd' && o.etcdServers.length === 0) throw new FlagError('--etcd-servers must be specified with --storage=etcd');
  if (o.storage !== 'etcd' && state.seen.has('etcd-servers')) {
    throw new FlagError('--etcd-servers is only used with --storage=etcd (the default storage is embedded)');
  }
  if (o.storage !== 'embedded' && state.seen.has('embedded-path')) throw new FlagError('--embedded-path is only used with --storage=embedded');
  for (const f of ['etcd-cafile', 'etcd-certfile', 'etcd-keyfile']) {
    if (o.storage !== 'etcd' && state.seen.has(f)) throw new FlagError(`--${f} is only used with --storage=etcd`);
  }
  if ((o.etcdCertFile === undefined) !== (o.etcdKeyFile === undefined)) throw new FlagError('--etcd-certfile and --etcd-keyfile must be specified together');
  if ((o.kubeletClientCertificate === undefined) !== (o.kubeletClientKey === undefined)) throw new FlagError('--kubelet-client-certificate and --kubelet-client-key must be specified together');
  if ((o.proxyClientCertFile === undefined) !== (o.proxyClientKeyFile === undefined)) throw new FlagError('--proxy-client-cert-file and --proxy-client-key-file must be specified together');
  if ((o.tlsCertFile === undefined) !== (o.tlsPrivateKeyFile === undefined)) {
    throw new FlagError('--tls-cert-file and --tls-private-key-file must be specified together');
  }
  if (o.serviceAccountExtendTokenExpiration && o.serviceAccountMaxTokenExpirationMs !== 0 && o.serviceAccountMaxTokenExpirationMs < 3607_000) {
    throw new FlagError(`service-account-extend-token-expiration is true, service-account-max-token-expiration must be set longer than 3607 seconds (currently ${formatDuration(o.serviceAccountMaxTokenExpirationMs)})`);
  }
  if (!state.seen.has('workers')) o.workers = defaultWorkers(o.storage);
  else if (o.storage === 'embedded' && o.workers > 1) {
    throw new FlagError(
      `--workers ${o.workers} needs --storage=etcd: with --storage=embedded one process owns the SQLite file and its watch, so only --workers 1 is allowed (use --storage etcd for several workers)`,
    );
  }
}

/**
 * Parses `windlass <command> [flags]` (argv without the node and script paths).
 * `windlass` alone, `windlass help …`, `--help` and `-h` anywhere mean help;
 * `windlass version` and `--version` mean version.
 */
export function parseFlags(argv: string[]): ParsedCommand {
  const state: ParseState = { options: defaultServerOptions(), compact: {}, help: false, version: false, seen: new Set() };
  const done = (command: Command): ParsedCommand => ({ command, options: state.options });
  const [first, ...rest] = argv;

  if (first === undefined || first === 'help') return done('help');
  if (first === 'version') {
    const positional = parseFlagArgs(rest, state);
    if (state.help) return done('help');
    if (positional.length > 0 || state.seen.size > 0) throw new FlagError(`"${PROGRAM} version" takes no arguments or flags`);
    return done('version');
  }
  if (first === 'start') {
    const positional = parseFlagArgs(rest, state);
    if (state.help) return done('help');
    if (state.version) return done('version');
    if (positional.length > 0) {
      throw new FlagError(`"${PROGRAM} start" does not take any arguments, got ${JSON.stringify(positional)}`);
    }
    validate(state);
    return done('start');
  }
  if (first === 'compact') {
    const positional = parseFlagArgs(rest, state, COMPACT_TABLE);
    if (state.help) return done('help');
    if (positional.length > 0) throw new FlagError(`"${PROGRAM} compact" does not take any arguments, got ${JSON.stringify(positional)}`);
    if (state.compact.revision === undefined) throw new FlagError('required flag(s) "revision" not set');
    return { ...done('compact'), compact: { ...state.compact, revision: state.compact.revision } };
  }
  if (first.startsWith('-')) {
    const positional = parseFlagArgs(argv, state);
    if (state.help) return done('help');
    if (state.version) return done('version');
    const flag = [...state.seen][0];
    if (flag) throw new FlagError(`--${flag} must follow a command: ${PROGRAM} start --${flag} …`);
    throw new FlagError(`unknown command ${JSON.stringify(positional[0] ?? '')} for "${PROGRAM}"`);
  }
  throw new FlagError(`unknown command ${JSON.stringify(first)} for "${PROGRAM}"`);
}

function flagLines(flags: FlagSpec[]): string[] {
  const left = flags.map((f) => `${f.shorthand ? `-${f.shorthand}, ` : '    '}--${f.name}${f.type ? ` ${f.type}` : ''}`);
  const width = Math.max(...left.map((l) => l.length)) + 3;
  return flags.map((f, i) => {
    const text = f.defaultText === undefined ? f.usage : `${f.usage} (default ${f.defaultText})`;
    const [head, ...more] = text.split('\n');
    return [`  ${left[i]!.padEnd(width)}${head}`, ...more.map((m) => `  ${' '.repeat(width)}${m}`)].join('\n');
  });
}

/** Help text in cobra/pflag's layout: commands, then every flag with its type and default. */
export function usage(): string {
  return [
    'Windlass: a Kubernetes-compatible control-plane API server.',
    '',
    'Usage:',
    `  ${PROGRAM} start [flags]`,
    `  ${PROGRAM} compact --revision R [--kubeconfig K]`,
    `  ${PROGRAM} help`,
    `  ${PROGRAM} version`,
    '',
    'Flags (for start):',
    ...flagLines(FLAGS),
    '',
    'Flags (for compact):',
    ...flagLines(COMPACT_FLAGS),
    '',
  ].join('\n');
}
