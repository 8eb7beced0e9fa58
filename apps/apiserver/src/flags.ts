/**
 * Command-line parsing for `windlass`. Flag names, syntax and messages follow
 * kube-apiserver (spf13/pflag under cobra) wherever kube has the flag, so that
 * invocations and scripts carry over; Windlass-only flags use the same style.
 */
import { isIP } from 'node:net';

export type Command = 'start' | 'help' | 'version';
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
export type FeatureGates = Record<FeatureGateName, boolean>;

export interface ServerOptions {
  dataDir: string;
  bindAddress: string;
  /** 0 asks the OS for a free port. */
  securePort: number;
  storage: StorageKind;
  etcdServers: string[];
  etcdPrefix: string;
  /** Every known gate, defaults filled in. */
  featureGates: FeatureGates;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  tokenAuthFile?: string;
  /** The SQLite file of embedded storage (`:memory:` for none); unset means inside dataDir. */
  embeddedPath?: string;
}

export interface ParsedCommand {
  command: Command;
  options: ServerOptions;
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
  };
}

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
  help: boolean;
  version: boolean;
  /** Which flags appeared, for the cross-flag checks. */
  seen: Set<string>;
}

function nonEmpty(value: string): string {
  if (value === '') throw 'must not be empty';
  return value;
}

// Go's strconv.ParseBool, which pflag and kube's feature gates use.
function parseBool(value: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw `strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`;
}

function parsePort(value: string): number {
  const n = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 0 && n <= 65535)) throw 'must be an integer between 0 and 65535 (0 picks a free port)';
  return n;
}

function parseEtcdServers(value: string): string[] {
  const servers = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const server of servers) {
    let url: URL | undefined;
    try {
      url = new URL(server);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
      throw `${JSON.stringify(server)} is not an etcd URL (scheme://host:port, scheme http or https)`;
    }
  }
  return servers;
}

const KNOWN_GATES = (Object.keys(FEATURE_GATES) as FeatureGateName[]).sort();

// kube's MapStringBool + featureGate.SetFromMap: pairs separated by commas, blanks
// ignored, every value a Go bool, every name a known gate.
function applyFeatureGates(gates: FeatureGates, value: string): void {
  for (const raw of value.split(',')) {
    const pair = raw.trim();
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    if (eq < 0) throw 'malformed pair, expect string=bool';
    const name = pair.slice(0, eq).trim();
    const v = pair.slice(eq + 1).trim();
    let enabled: boolean;
    try {
      enabled = parseBool(v);
    } catch (err) {
      throw `invalid value of ${name}: ${v}, err: ${err as string}`;
    }
    if (!Object.hasOwn(FEATURE_GATES, name)) {
      throw `unrecognized feature gate: ${name} (known gates: ${KNOWN_GATES.join(', ')})`;
    }
    gates[name as FeatureGateName] = enabled;
  }
}

function featureGatesUsage(): string {
  const lines = KNOWN_GATES.map((n) => `${n}=true|false (${FEATURE_GATES[n].stage} - default=${FEATURE_GATES[n].default})`);
  return `A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:\n${lines.join('\n')}`;
}

const defaults = defaultServerOptions();

// Sorted by name, as pflag prints them.
const FLAGS: FlagSpec[] = [
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
    name: 'secure-port',
    type: 'int',
    defaultText: String(defaults.securePort),
    usage: 'The port on which to serve HTTPS with authentication and authorization. 0 picks a free port.',
    set(s, v) {
      s.options.securePort = parsePort(v);
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
    name: 'version',
    type: '',
    bool: true,
    usage: 'Print version information and quit.',
    set(s, v) {
      s.version = parseBool(v);
    },
  },
];

const BY_NAME = new Map(FLAGS.map((f) => [f.name, f]));
const BY_SHORTHAND = new Map(FLAGS.filter((f) => f.shorthand).map((f) => [f.shorthand!, f]));

function applyFlag(state: ParseState, flag: FlagSpec, value: string, shown: string): void {
  try {
    flag.set(state, value);
  } catch (err) {
    if (typeof err === 'string') throw new FlagError(`invalid argument ${JSON.stringify(value)} for "${shown}" flag: ${err}`);
    throw err;
  }
  state.seen.add(flag.name);
}

/** Parses the flags of `start` in pflag's way, returning the positional arguments. */
function parseFlagArgs(args: string[], state: ParseState): string[] {
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
      const flag = BY_NAME.get(name);
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
      const flag = BY_SHORTHAND.get(letter);
      if (!flag) {
        const hint = arg.length > 2 && BY_NAME.has(arg.slice(1)) ? ` (long flags take two dashes: -${arg})` : '';
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
  if ((o.tlsCertFile === undefined) !== (o.tlsPrivateKeyFile === undefined)) {
    throw new FlagError('--tls-cert-file and --tls-private-key-file must be specified together');
  }
}

/**
 * Parses `windlass <command> [flags]` (argv without the node and script paths).
 * `windlass` alone, `windlass help …`, `--help` and `-h` anywhere mean help;
 * `windlass version` and `--version` mean version.
 */
export function parseFlags(argv: string[]): ParsedCommand {
  const state: ParseState = { options: defaultServerOptions(), help: false, version: false, seen: new Set() };
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

/** Help text in cobra/pflag's layout: commands, then every flag with its type and default. */
export function usage(): string {
  const left = FLAGS.map((f) => `${f.shorthand ? `-${f.shorthand}, ` : '    '}--${f.name}${f.type ? ` ${f.type}` : ''}`);
  const width = Math.max(...left.map((l) => l.length)) + 3;
  const flagLines = FLAGS.map((f, i) => {
    const text = f.defaultText === undefined ? f.usage : `${f.usage} (default ${f.defaultText})`;
    const [head, ...more] = text.split('\n');
    return [`  ${left[i]!.padEnd(width)}${head}`, ...more.map((m) => `  ${' '.repeat(width)}${m}`)].join('\n');
  });
  return [
    'Windlass: a Kubernetes-compatible control-plane API server.',
    '',
    'Usage:',
    `  ${PROGRAM} start [flags]`,
    `  ${PROGRAM} help`,
    `  ${PROGRAM} version`,
    '',
    'Flags (for start):',
    ...flagLines,
    '',
  ].join('\n');
}
