import { availableParallelism } from 'node:os';
import { FEATURE_GATES, defaultServerOptions, defaultWorkers, maxWorkers, parseFlags, usage, type ServerOptions } from './flags.js';
import { flagError } from './flagtesting.js';

function start(...args: string[]): ServerOptions {
  const parsed = parseFlags(['start', ...args]);
  expect(parsed.command).toBe('start');
  return parsed.options;
}


describe('commands', () => {
  it.each<[string[], string]>([
    [[], 'help'],
    [['help'], 'help'],
    [['help', 'start'], 'help'],
    [['--help'], 'help'],
    [['-h'], 'help'],
    [['start', '--help'], 'help'],
    [['start', '-h'], 'help'],
    [['start', '--secure-port', '0', '--help'], 'help'],
    [['start', '--help=true'], 'help'],
    [['version'], 'version'],
    [['--version'], 'version'],
    [['version', '--help'], 'help'],
    [['start'], 'start'],
  ])('%j is %s', (argv, command) => {
    expect(parseFlags(argv).command).toBe(command);
  });

  it('does not validate a command line that asks for help', () => {
    expect(parseFlags(['start', '--storage=etcd', '--help']).command).toBe('help');
  });

  it('--help=false does not ask for help', () => {
    expect(parseFlags(['start', '--help=false']).command).toBe('start');
  });

  it('rejects unknown commands', () => {
    expect(flagError(['serve'])).toBe('unknown command "serve" for "windlass"');
  });

  it('asks for flags to follow the start command', () => {
    expect(flagError(['--secure-port', '0'])).toBe('--secure-port must follow a command: windlass start --secure-port …');
  });

  it('rejects arguments to start and to version', () => {
    expect(flagError(['start', 'extra'])).toBe('"windlass start" does not take any arguments, got ["extra"]');
    expect(flagError(['start', '--', '--secure-port'])).toBe('"windlass start" does not take any arguments, got ["--secure-port"]');
    expect(flagError(['version', 'now'])).toBe('"windlass version" takes no arguments or flags');
  });
});

describe('defaults', () => {
  it('are the documented ones', () => {
    expect(start()).toEqual({
      dataDir: './.windlass',
      bindAddress: '127.0.0.1',
      endpointReconcilerType: 'lease',
      securePort: 6443,
      storage: 'embedded',
      etcdServers: [],
      etcdPrefix: '/registry',
      featureGates: { APIResponseCompression: true, AllowUnsafeMalformedObjectDeletion: false, CBORServingAndStorage: false },
      authorizationModes: ['RBAC'],
      anonymousAuth: true,
      etcdCompactionIntervalMs: 5 * 60 * 1000,
      watchCacheHistoryWindowMs: 5 * 60 * 1000,
      watchCacheSnapshotWindowMs: 75 * 1000,
      workers: 1,
      maxRequestsInflight: 400,
      maxMutatingRequestsInflight: 200,
      requestHeaderAllowedNames: [],
      requestTimeoutMs: 60_000,
      shutdownDelayDurationMs: 0,
      serviceClusterIPRange: '10.96.0.0/12',
      serviceNodePortRange: { base: 30000, size: 2768 },
      serviceAccountIssuers: ['https://kubernetes.default.svc.cluster.local'],
      serviceAccountKeyFiles: [],
      apiAudiences: [],
      serviceAccountMaxTokenExpirationMs: 0,
      serviceAccountExtendTokenExpiration: true,
    });
    expect(parseFlags([]).options).toEqual(defaultServerOptions());
  });

  it('are fresh objects each time', () => {
    const a = start('--feature-gates=CBORServingAndStorage=true', '--storage=etcd', '--etcd-servers=http://e:2379');
    expect(a.featureGates.CBORServingAndStorage).toBe(true);
    expect(start()).toEqual(defaultServerOptions());
    expect(defaultServerOptions().featureGates.CBORServingAndStorage).toBe(false);
    expect(defaultServerOptions().etcdServers).toEqual([]);
  });
});

describe('flag syntax', () => {
  it('accepts --flag=value and --flag value', () => {
    expect(start('--data-dir=/a').dataDir).toBe('/a');
    expect(start('--data-dir', '/b').dataDir).toBe('/b');
    expect(start('--data-dir=x=y').dataDir).toBe('x=y');
  });

  it('lets the last occurrence of a flag win', () => {
    expect(start('--secure-port=1', '--secure-port', '2').securePort).toBe(2);
  });

  it('reports unknown flags', () => {
    expect(flagError(['start', '--secure-prot=1'])).toBe('unknown flag: --secure-prot');
    expect(flagError(['start', '-x'])).toBe("unknown shorthand flag: 'x' in -x");
    expect(flagError(['start', '-data-dir', 'x'])).toBe("unknown shorthand flag: 'd' in -data-dir (long flags take two dashes: --data-dir)");
    expect(flagError(['start', '---data-dir'])).toBe('bad flag syntax: ---data-dir');
  });

  it('reports a missing value, naming the flag', () => {
    expect(flagError(['start', '--data-dir'])).toBe('flag needs an argument: --data-dir');
    expect(flagError(['start', '--data-dir', '--secure-port', '1'])).toBe('flag needs an argument: --data-dir');
  });

  it('rejects empty values', () => {
    expect(flagError(['start', '--data-dir='])).toBe('invalid argument "" for "--data-dir" flag: must not be empty');
    expect(flagError(['start', '--token-auth-file', ''])).toBe('invalid argument "" for "--token-auth-file" flag: must not be empty');
  });
});

describe('--bind-address', () => {
  it.each(['127.0.0.1', '0.0.0.0', '::', '::1', '192.168.1.20', 'fe80::1'])('accepts %s', (ip) => {
    expect(start('--bind-address', ip).bindAddress).toBe(ip);
  });

  it.each(['localhost', '256.0.0.1', '[::1]', '1.2.3', ''])('rejects %j', (value) => {
    expect(flagError(['start', `--bind-address=${value}`])).toBe(
      `invalid argument ${JSON.stringify(value)} for "--bind-address" flag: failed to parse IP: ${JSON.stringify(value)}`,
    );
  });
});

describe('--secure-port', () => {
  it.each<[string, number]>([
    ['0', 0],
    ['1', 1],
    ['8443', 8443],
    ['65535', 65535],
  ])('accepts %s', (value, port) => {
    expect(start(`--secure-port=${value}`).securePort).toBe(port);
  });

  it.each(['65536', '-1', 'abc', '1.5', '0x10', '', ' 80', '+80', '123456'])('rejects %j', (value) => {
    expect(flagError(['start', `--secure-port=${value}`])).toBe(
      `invalid argument ${JSON.stringify(value)} for "--secure-port" flag: must be an integer between 0 and 65535 (0 picks a free port)`,
    );
  });
});

describe('storage flags', () => {
  it('selects etcd with its servers and prefix', () => {
    const o = start('--storage=etcd', '--etcd-servers', 'http://127.0.0.1:2379, https://etcd-2:2379', '--etcd-prefix=/windlass');
    expect(o.storage).toBe('etcd');
    expect(o.etcdServers).toEqual(['http://127.0.0.1:2379', 'https://etcd-2:2379']);
    expect(o.etcdPrefix).toBe('/windlass');
  });

  it('adds servers when --etcd-servers repeats', () => {
    expect(start('--storage=etcd', '--etcd-servers=http://a:2379', '--etcd-servers=http://b:2379').etcdServers).toEqual([
      'http://a:2379',
      'http://b:2379',
    ]);
  });

  it('rejects an unknown storage', () => {
    expect(flagError(['start', '--storage=sqlite'])).toBe('invalid argument "sqlite" for "--storage" flag: must be one of: embedded, etcd');
  });

  it('requires --etcd-servers with --storage=etcd', () => {
    expect(flagError(['start', '--storage=etcd'])).toBe('--etcd-servers must be specified with --storage=etcd');
    expect(flagError(['start', '--storage=etcd', '--etcd-servers='])).toBe('--etcd-servers must be specified with --storage=etcd');
  });

  it('rejects --etcd-servers without --storage=etcd, rather than silently using embedded storage', () => {
    expect(flagError(['start', '--etcd-servers=http://a:2379'])).toMatch(/^--etcd-servers is only used with --storage=etcd/);
  });

  it('rejects etcd servers that are not http(s) URLs', () => {
    expect(flagError(['start', '--storage=etcd', '--etcd-servers=127.0.0.1:2379'])).toBe(
      'invalid argument "127.0.0.1:2379" for "--etcd-servers" flag: "127.0.0.1:2379" is not an etcd URL (scheme://host:port, scheme http or https)',
    );
    expect(flagError(['start', '--storage=etcd', '--etcd-servers=ftp://a:2379'])).toMatch(/"ftp:\/\/a:2379" is not an etcd URL/);
  });

  it('takes kube\'s etcd TLS files, the certificate and key together, with etcd only', () => {
    const o = start('--storage=etcd', '--etcd-servers=https://e:2379', '--etcd-cafile=/pki/ca.crt', '--etcd-certfile', '/pki/c.crt', '--etcd-keyfile=/pki/c.key');
    expect([o.etcdCAFile, o.etcdCertFile, o.etcdKeyFile]).toEqual(['/pki/ca.crt', '/pki/c.crt', '/pki/c.key']);
    expect(start('--storage=etcd', '--etcd-servers=https://e:2379', '--etcd-cafile=/pki/ca.crt').etcdCertFile).toBeUndefined();
    expect(flagError(['start', '--storage=etcd', '--etcd-servers=https://e:2379', '--etcd-certfile=/c.crt'])).toBe('--etcd-certfile and --etcd-keyfile must be specified together');
    expect(flagError(['start', '--etcd-cafile=/ca.crt'])).toBe('--etcd-cafile is only used with --storage=etcd');
  });

  it('takes --embedded-path, including :memory:, with embedded storage only', () => {
    expect(start('--embedded-path=:memory:').embeddedPath).toBe(':memory:');
    expect(start('--embedded-path', '/tmp/w.db').embeddedPath).toBe('/tmp/w.db');
    expect(start().embeddedPath).toBeUndefined();
    expect(flagError(['start', '--storage=etcd', '--etcd-servers=http://a:1', '--embedded-path=:memory:'])).toBe(
      '--embedded-path is only used with --storage=embedded',
    );
  });
});

describe('--workers', () => {
  const etcd = ['--storage=etcd', '--etcd-servers=http://a:2379'];

  it('defaults to one per core with etcd and to one with embedded storage', () => {
    expect(start(...etcd).workers).toBe(availableParallelism());
    expect(defaultWorkers('etcd')).toBe(availableParallelism());
    expect(start().workers).toBe(1);
    expect(defaultWorkers('embedded')).toBe(1);
  });

  it('takes a count, with etcd', () => {
    expect(start(...etcd, '--workers=2').workers).toBe(2);
    expect(start(...etcd, '--workers', '1').workers).toBe(1);
    expect(start(...etcd, `--workers=${maxWorkers}`).workers).toBe(maxWorkers);
  });

  it('takes 1 with embedded storage', () => {
    expect(start('--workers=1').workers).toBe(1);
    expect(start('--storage=embedded', '--workers', '1').workers).toBe(1);
  });

  it('refuses more than 1 with embedded storage, saying why', () => {
    const msg = flagError(['start', '--workers=2']);
    expect(msg).toBe(
      '--workers 2 needs --storage=etcd: with --storage=embedded one process owns the SQLite file and its watch, so only --workers 1 is allowed (use --storage etcd for several workers)',
    );
    expect(flagError(['start', '--storage=embedded', '--embedded-path=:memory:', '--workers', '4'])).toMatch(/^--workers 4 needs --storage=etcd: /);
  });

  it.each(['0', '-1', 'abc', '1.5', '', String(maxWorkers + 1), ' 2'])('rejects %j', (value) => {
    expect(flagError(['start', ...etcd, `--workers=${value}`])).toBe(
      `invalid argument ${JSON.stringify(value)} for "--workers" flag: must be an integer between 1 and ${maxWorkers}`,
    );
  });
});

describe('--feature-gates', () => {
  it('sets gates in kube syntax, keeping defaults for the rest', () => {
    expect(start('--feature-gates=APIResponseCompression=false,CBORServingAndStorage=true').featureGates).toEqual({
      APIResponseCompression: false,
      AllowUnsafeMalformedObjectDeletion: false,
      CBORServingAndStorage: true,
    });
  });

  it("accepts Go's boolean spellings, spaces and empty pairs", () => {
    const g = start('--feature-gates', ' CBORServingAndStorage = T ,, AllowUnsafeMalformedObjectDeletion=1,APIResponseCompression=FALSE').featureGates;
    expect(g).toEqual({ APIResponseCompression: false, AllowUnsafeMalformedObjectDeletion: true, CBORServingAndStorage: true });
  });

  it('merges repeated flags, later values winning', () => {
    const g = start('--feature-gates=CBORServingAndStorage=true', '--feature-gates=APIResponseCompression=false,CBORServingAndStorage=false').featureGates;
    expect(g).toEqual({ APIResponseCompression: false, AllowUnsafeMalformedObjectDeletion: false, CBORServingAndStorage: false });
  });

  it('rejects unknown gates, listing the known ones', () => {
    expect(flagError(['start', '--feature-gates=Foo=true'])).toBe(
      'invalid argument "Foo=true" for "--feature-gates" flag: unrecognized feature gate: Foo (known gates: APIResponseCompression, AllowUnsafeMalformedObjectDeletion, CBORServingAndStorage)',
    );
  });

  it('rejects values that are not booleans', () => {
    expect(flagError(['start', '--feature-gates=APIResponseCompression=yes'])).toBe(
      'invalid argument "APIResponseCompression=yes" for "--feature-gates" flag: invalid value of APIResponseCompression: yes, err: strconv.ParseBool: parsing "yes": invalid syntax',
    );
  });

  it('rejects pairs without =', () => {
    expect(flagError(['start', '--feature-gates=APIResponseCompression'])).toBe(
      'invalid argument "APIResponseCompression" for "--feature-gates" flag: malformed pair, expect string=bool',
    );
  });
});

describe('TLS and authentication files', () => {
  it('takes a serving certificate and key together', () => {
    const o = start('--tls-cert-file=/c.crt', '--tls-private-key-file', '/c.key');
    expect(o.tlsCertFile).toBe('/c.crt');
    expect(o.tlsPrivateKeyFile).toBe('/c.key');
  });

  it('rejects a certificate without a key, and a key without a certificate', () => {
    const msg = '--tls-cert-file and --tls-private-key-file must be specified together';
    expect(flagError(['start', '--tls-cert-file=/c.crt'])).toBe(msg);
    expect(flagError(['start', '--tls-private-key-file=/c.key'])).toBe(msg);
  });

  it('takes --token-auth-file', () => {
    expect(start('--token-auth-file=/tokens.csv').tokenAuthFile).toBe('/tokens.csv');
    expect(start().tokenAuthFile).toBeUndefined();
  });
});

describe('--authorization-mode and --anonymous-auth', () => {
  it('takes kube\'s mode names in order; repeating the flag adds modes', () => {
    expect(start('--authorization-mode=AlwaysDeny,RBAC').authorizationModes).toEqual(['AlwaysDeny', 'RBAC']);
    expect(start('--authorization-mode', 'AlwaysAllow').authorizationModes).toEqual(['AlwaysAllow']);
    expect(start('--authorization-mode=AlwaysDeny', '--authorization-mode=RBAC').authorizationModes).toEqual(['AlwaysDeny', 'RBAC']);
  });

  it('refuses unknown and repeated modes as kube does, and kube\'s modes Windlass lacks with the reason', () => {
    expect(flagError(['start', '--authorization-mode=Rbac'])).toBe('invalid argument "Rbac" for "--authorization-mode" flag: authorization-mode "Rbac" is not a valid mode');
    expect(flagError(['start', '--authorization-mode=RBAC,RBAC'])).toBe('invalid argument "RBAC,RBAC" for "--authorization-mode" flag: authorization-mode ["RBAC" "RBAC"] has mode specified more than once');
    expect(flagError(['start', '--authorization-mode=Node,RBAC'])).toMatch(/^invalid argument "Node,RBAC" for "--authorization-mode" flag: authorization-mode "Node" is not supported by windlass: .*; use RBAC$/);
    expect(flagError(['start', '--authorization-mode=Webhook'])).toMatch(/authorization-mode "Webhook" is not supported by windlass/);
  });

  it('turns anonymous requests off with --anonymous-auth=false', () => {
    expect(start('--anonymous-auth=false').anonymousAuth).toBe(false);
    expect(start('--anonymous-auth').anonymousAuth).toBe(true);
    expect(flagError(['start', '--anonymous-auth=maybe'])).toBe('invalid argument "maybe" for "--anonymous-auth" flag: strconv.ParseBool: parsing "maybe": invalid syntax');
  });
});

describe('usage()', () => {
  const text = usage();

  it('lists the commands', () => {
    expect(text).toContain('windlass start [flags]');
    expect(text).toContain('windlass help');
    expect(text).toContain('windlass version');
    expect(text).toContain('windlass compact --revision R [--kubeconfig K]');
  });

  it.each<[string, string | null]>([
    ['--bind-address ip', '(default 127.0.0.1)'],
    ['--data-dir string', '(default "./.windlass")'],
    ['--embedded-path string', null],
    ['--etcd-compaction-interval duration', '(default 5m0s)'],
    ['--etcd-prefix string', '(default "/registry")'],
    ['--etcd-servers strings', null],
    ['--feature-gates mapStringBool', null],
    ['-h, --help', null],
    ['--max-mutating-requests-inflight int', '(default 200)'],
    ['--max-requests-inflight int', '(default 400)'],
    ['--request-timeout duration', '(default 1m0s)'],
    ['--secure-port int', '(default 6443)'],
    ['--shutdown-delay-duration duration', '(default 0s)'],
    ['--storage string', '(default "embedded")'],
    ['--tls-cert-file string', null],
    ['--tls-private-key-file string', null],
    ['--token-auth-file string', null],
    ['--version', null],
    ['--workers int', null],
  ])('lists %s with its default', (flag, dflt) => {
    const line = text.split('\n').find((l) => l.trimStart().startsWith(flag.startsWith('-h') ? flag : `${flag} `) || l.trim() === flag);
    expect(line).toBeDefined();
    if (dflt) expect(line).toContain(dflt);
    else expect(line).not.toContain('(default');
  });

  it('lists every feature gate with its default', () => {
    for (const [name, spec] of Object.entries(FEATURE_GATES)) {
      expect(text).toContain(`${name}=true|false (${spec.stage} - default=${spec.default})`);
    }
  });

  it('documents the default of --workers and why embedded storage has one', () => {
    expect(text).toMatch(/--workers int .*one per core with --storage=etcd.*one process owns the SQLite file/);
  });

  it('documents that the bind address differs from kube-apiserver', () => {
    expect(text).toMatch(/--bind-address ip .*loopback only.*0\.0\.0\.0/);
  });

  /** The flag lines of one "Flags (for …):" section. */
  const section = (name: string) => {
    const lines = text.split('\n');
    const from = lines.indexOf(`Flags (for ${name}):`) + 1;
    const to = lines.indexOf('', from);
    return lines.slice(from, to).filter((l) => /^ {2}(-h, | {4})--/.test(l));
  };
  const column = (l: string) => l.match(/^ {2}(?:-h, | {4})--[a-z-]+(?: [A-Za-z]+)? +/)![0].length;

  it('aligns descriptions in one column', () => {
    const flagLines = section('start');
    expect(flagLines).toHaveLength(50);
    expect(new Set(flagLines.map(column)).size).toBe(1);
  });

  it('lists the flags of compact in their own section', () => {
    const flagLines = section('compact');
    expect(flagLines.map((l) => l.trim().split(/ {2,}/)[0])).toEqual(['-h, --help', '--kubeconfig string', '--revision int']);
    expect(new Set(flagLines.map(column)).size).toBe(1);
  });
});

describe('--etcd-compaction-interval', () => {
  it.each<[string, number]>([
    ['5m', 300_000],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['250ms', 250],
    ['10s', 10_000],
    ['0', 0],
    ['0s', 0],
  ])('takes Go durations: %s', (value, ms) => {
    expect(start(`--etcd-compaction-interval=${value}`).etcdCompactionIntervalMs).toBe(ms);
  });

  it.each<[string, string]>([
    ['abc', 'time: invalid duration "abc"'],
    ['5', 'time: missing unit in duration "5"'],
    ['5d', 'time: unknown unit "d" in duration "5d"'],
    ['', 'time: invalid duration ""'],
    ['-1m', 'must not be negative'],
  ])('rejects %j', (value, reason) => {
    expect(flagError(['start', `--etcd-compaction-interval=${value}`])).toBe(`invalid argument ${JSON.stringify(value)} for "--etcd-compaction-interval" flag: ${reason}`);
  });
});

describe('watch cache windows', () => {
  it('take Go durations', () => {
    const o = start('--watch-cache-history-window=10m', '--watch-cache-snapshot-window', '30s');
    expect(o.watchCacheHistoryWindowMs).toBe(600_000);
    expect(o.watchCacheSnapshotWindowMs).toBe(30_000);
  });

  it('reject a history window that is not positive', () => {
    expect(flagError(['start', '--watch-cache-history-window=0'])).toBe('invalid argument "0" for "--watch-cache-history-window" flag: must be positive');
    expect(flagError(['start', '--watch-cache-snapshot-window=-1s'])).toBe('invalid argument "-1s" for "--watch-cache-snapshot-window" flag: must not be negative');
  });
});

describe('compact', () => {
  it('takes --revision and --kubeconfig', () => {
    expect(parseFlags(['compact', '--kubeconfig', '/k', '--revision', '42'])).toMatchObject({ command: 'compact', compact: { kubeconfig: '/k', revision: 42 } });
    const noConfig = parseFlags(['compact', '--revision=7']);
    expect(noConfig.compact).toEqual({ revision: 7 });
  });

  it('requires --revision, a positive integer', () => {
    expect(flagError(['compact'])).toBe('required flag(s) "revision" not set');
    expect(flagError(['compact', '--kubeconfig', '/k'])).toBe('required flag(s) "revision" not set');
    for (const bad of ['abc', '0', '-1', '1.5', '']) {
      expect(flagError(['compact', `--revision=${bad}`])).toBe(`invalid argument ${JSON.stringify(bad)} for "--revision" flag: must be a positive integer`);
    }
  });

  it("takes none of start's flags, and no arguments", () => {
    expect(flagError(['compact', '--revision', '1', '--storage', 'etcd'])).toBe('unknown flag: --storage');
    expect(flagError(['compact', '--revision', '1', 'extra'])).toBe('"windlass compact" does not take any arguments, got ["extra"]');
  });

  it('asks for help with --help', () => {
    expect(parseFlags(['compact', '--help']).command).toBe('help');
  });
});

describe('limits and shutdown (kube-apiserver flags)', () => {
  it('has kube\'s defaults', () => {
    const o = start();
    expect(o.maxRequestsInflight).toBe(400);
    expect(o.maxMutatingRequestsInflight).toBe(200);
    expect(o.requestTimeoutMs).toBe(60_000);
    expect(o.shutdownDelayDurationMs).toBe(0);
  });

  it('parses the service ranges', () => {
    const o = start('--service-cluster-ip-range=10.0.0.0/16', '--service-node-port-range', '31000-31010');
    expect(o.serviceClusterIPRange).toBe('10.0.0.0/16');
    expect(o.serviceNodePortRange).toEqual({ base: 31000, size: 11 });
    expect(flagError(['start', '--service-cluster-ip-range=10.96.0.1/12'])).toBe('invalid argument "10.96.0.1/12" for "--service-cluster-ip-range" flag: 10.96.0.1/12 is not a valid service CIDR: it must be a network address with room for services');
    expect(flagError(['start', '--service-cluster-ip-range=ten'])).toBe('invalid argument "ten" for "--service-cluster-ip-range" flag: invalid CIDR address: ten');
    expect(flagError(['start', '--service-node-port-range=32767-30000'])).toBe('invalid argument "32767-30000" for "--service-node-port-range" flag: unable to parse port range: 32767-30000');
  });

  it('parses each', () => {
    const o = start('--max-requests-inflight=10', '--max-mutating-requests-inflight', '0', '--request-timeout=1m30s', '--shutdown-delay-duration', '5s');
    expect(o.maxRequestsInflight).toBe(10);
    expect(o.maxMutatingRequestsInflight).toBe(0);
    expect(o.requestTimeoutMs).toBe(90_000);
    expect(o.shutdownDelayDurationMs).toBe(5000);
  });

  it.each<[string, string]>([
    ['--max-requests-inflight=-1', 'invalid argument "-1" for "--max-requests-inflight" flag: --max-requests-inflight can not be negative value'],
    ['--max-mutating-requests-inflight=x', 'invalid argument "x" for "--max-mutating-requests-inflight" flag: strconv.ParseInt: parsing "x": invalid syntax'],
    ['--request-timeout=-1s', 'invalid argument "-1s" for "--request-timeout" flag: --request-timeout can not be negative value'],
    ['--request-timeout=5', 'invalid argument "5" for "--request-timeout" flag: time: missing unit in duration "5"'],
    ['--shutdown-delay-duration=-2s', 'invalid argument "-2s" for "--shutdown-delay-duration" flag: --shutdown-delay-duration can not be negative value'],
  ])('refuses %s', (arg, message) => {
    expect(flagError(['start', arg])).toBe(message);
  });
});

describe('authentication flags', () => {
  it('replaces the default issuer with the first --service-account-issuer and adds the others, in order', () => {
    expect(start('--service-account-issuer=https://a.example', '--service-account-issuer', 'b').serviceAccountIssuers).toEqual(['https://a.example', 'b']);
  });

  it.each<[string[], string]>([
    [['--service-account-issuer='], `service-account-issuer contained a '' value`],
    [['--service-account-issuer=https://a', '--service-account-issuer=https://a'], 'service-account-issuer https://a is already specified'],
    [['--service-account-issuer=https://[bad'], `contained a ':' but was not a valid URL`],
    [['--service-account-max-token-expiration=30m'], 'the service-account-max-token-expiration must be between 1 hour and 2^32 seconds'],
    [['--service-account-jwks-uri=http://x/jwks'], 'service-account-jwks-uri requires https scheme, parsed as: http://x/jwks'],
  ])('refuses %j as kube does', (args, message) => {
    expect(() => start(...args)).toThrow(message);
  });

  it('needs a maximum expiration above the extended tokens\' 3607 s unless extension is off', () => {
    expect(() => start('--service-account-max-token-expiration=1h')).toThrow(
      'service-account-extend-token-expiration is true, service-account-max-token-expiration must be set longer than 3607 seconds (currently 1h0m0s)',
    );
    const o = start('--service-account-max-token-expiration=1h', '--service-account-extend-token-expiration=false');
    expect([o.serviceAccountMaxTokenExpirationMs, o.serviceAccountExtendTokenExpiration]).toEqual([3_600_000, false]);
  });

  it('collects key files, audiences and the client CA', () => {
    const o = start('--service-account-key-file=/a.pub', '--service-account-key-file=/b.pub', '--api-audiences=x,y', '--api-audiences=z',
      '--service-account-signing-key-file=/sa.key', '--client-ca-file=/ca.crt', '--service-account-jwks-uri=https://h/jwks');
    expect([o.serviceAccountKeyFiles, o.apiAudiences, o.serviceAccountSigningKeyFile, o.clientCAFile, o.serviceAccountJWKSURI])
      .toEqual([['/a.pub', '/b.pub'], ['x', 'y', 'z'], '/sa.key', '/ca.crt', 'https://h/jwks']);
  });
});
