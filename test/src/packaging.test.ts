/**
 * deploy/Dockerfile and docker-compose.yml, checked without a Docker engine (none runs here):
 * what the image copies exists after the build, the runtime layout it assembles serves, the
 * user is not root, and the compose stack's flags, mounts and configs fit together.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import https from 'node:https';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeDir, tempDir } from './harness.js';

// js-yaml's types are not a dependency of this package.
const yaml = createRequire(import.meta.url)('js-yaml') as { load(text: string): unknown };
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');

interface Instruction { op: string; args: string }
interface Stage { from: string; name?: string; instructions: Instruction[] }

/** Dockerfile instructions (continuations joined, comments dropped), grouped by stage, ARG defaults resolved in FROM. */
function parseDockerfile(text: string): Stage[] {
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op, rest] = /^(\S+)\s+(.*)$/.exec(line)!;
    const upper = op.toUpperCase();
    if (upper === 'ARG' && stages.length === 0) {
      const [k, v] = rest.split('=');
      args[k] = v;
    } else if (upper === 'FROM') {
      const [image, , name] = rest.replace(/\$\{(\w+)\}/g, (_, k) => args[k] ?? '').split(/\s+/);
      stages.push({ from: image, name, instructions: [] });
    } else {
      stages[stages.length - 1].instructions.push({ op: upper, args: rest });
    }
  }
  return stages;
}

const dockerfile = parseDockerfile(read('deploy/Dockerfile'));
const build = dockerfile[0];
const runtime = dockerfile[dockerfile.length - 1];
const runtimeCopies = runtime.instructions.filter((i) => i.op === 'COPY').map((i) => {
  const m = /^--from=(\S+)\s+(\S+)\s+(\S+)$/.exec(i.args);
  if (!m) throw new Error(`runtime COPY not from the build stage: ${i.args}`);
  expect(m[1]).toBe(build.name);
  expect(m[2].startsWith('/src/')).toBe(true);
  return { repoPath: m[2].slice('/src/'.length), dest: m[3] };
});

/** The workspace packages the server needs: windlass and its workspace:* dependencies, transitively. */
function workspaceClosure(): string[] {
  const dirs: Record<string, string> = {};
  for (const group of ['apps', 'packages']) {
    for (const d of readdirSync(join(root, group))) {
      const pj = join(root, group, d, 'package.json');
      if (existsSync(pj)) dirs[JSON.parse(readFileSync(pj, 'utf8')).name] = `${group}/${d}`;
    }
  }
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const deps = JSON.parse(read(`${dirs[name]}/package.json`)).dependencies ?? {};
    for (const [dep, spec] of Object.entries(deps)) if (String(spec).startsWith('workspace:')) visit(dep);
  };
  visit('windlass');
  return [...seen].map((n) => dirs[n]).sort();
}

describe('deploy/Dockerfile', () => {
  test('multi-stage, a slim or distroless Node 20 runtime, running as a non-root user', () => {
    expect(dockerfile.length).toBeGreaterThanOrEqual(2);
    expect(runtime.from).toMatch(/^(node:20(\.[\d.]+)?-(bookworm-|bullseye-)?slim|gcr\.io\/distroless\/nodejs20-debian\d+(:nonroot)?)$/);
    // Native modules are built against the runtime's libc: the build stage is the same image.
    expect(build.from).toBe(runtime.from);
    const users = runtime.instructions.filter((i) => i.op === 'USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users[users.length - 1].args).not.toMatch(/^(root|0)(:|$)/);
    // Nothing after USER switches back or installs as root.
    const after = runtime.instructions.slice(runtime.instructions.indexOf(users[users.length - 1]) + 1);
    expect(after.filter((i) => i.op === 'RUN' || i.op === 'USER')).toEqual([]);
  });

  test('every path the build stage copies from the context exists and is not ignored', () => {
    const ignored = read('deploy/Dockerfile.dockerignore').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    for (const i of build.instructions.filter((x) => x.op === 'COPY')) {
      const parts = i.args.split(/\s+/);
      expect(parts[0].startsWith('--from')).toBe(false);
      for (const src of parts.slice(0, -1)) {
        expect(existsSync(join(root, src)) ? src : `missing: ${src}`).toBe(src);
        for (const pattern of ignored) {
          const re = new RegExp(`^${pattern.replace(/\./g, '\\.').replace(/\*\*\//g, '(.*/)?').replace(/\*/g, '[^/]*')}(/|$)`);
          expect(re.test(src) ? `${src} ignored by ${pattern}` : src).toBe(src);
        }
      }
    }
  });

  test('every path the runtime copies exists after the build, and covers the server, its workspace packages and the entrypoint', () => {
    for (const c of runtimeCopies) expect(existsSync(join(root, c.repoPath)) ? c.repoPath : `missing after build: ${c.repoPath}`).toBe(c.repoPath);
    const copied = new Set(runtimeCopies.map((c) => c.repoPath));
    for (const pkg of workspaceClosure()) {
      // A package without production dependencies has no node_modules in the image's install.
      const hasDependencies = Object.keys(JSON.parse(read(`${pkg}/package.json`)).dependencies ?? {}).length > 0;
      for (const part of ['package.json', 'dist', ...(hasDependencies ? ['node_modules'] : [])]) expect(copied.has(`${pkg}/${part}`) ? pkg : `${pkg}/${part} not copied`).toBe(pkg);
      // A native addon (binding.gyp) is built into build/Release, which the image needs too.
      if (existsSync(join(root, pkg, 'binding.gyp'))) expect(runtimeCopies.some((c) => c.repoPath.startsWith(`${pkg}/build/Release/`)) ? pkg : `${pkg}/build/Release not copied`).toBe(pkg);
    }
    const entrypoint = JSON.parse(runtime.instructions.find((i) => i.op === 'ENTRYPOINT')!.args) as string[];
    expect(entrypoint[0]).toBe('node');
    const copy = runtimeCopies.find((c) => entrypoint[1] === c.dest || entrypoint[1].startsWith(`${c.dest}/`));
    expect(copy).toBeDefined();
    expect(existsSync(join(root, copy!.repoPath, entrypoint[1].slice(copy!.dest.length)))).toBe(true);
  });

  test("the runtime's layout (production dependencies only, as the build stage installs them) serves", async () => {
    const pnpm = spawnSync('pnpm', ['--version'], { encoding: 'utf8' });
    if (pnpm.status !== 0) {
      console.warn('pnpm is not on PATH: the runtime layout is not assembled');
      return;
    }
    const dir = tempDir('windlass-image-');
    try {
      // The build stage's tree: the manifests, the built packages, then the production install.
      const src = join(dir, 'src');
      for (const i of build.instructions.filter((x) => x.op === 'COPY')) {
        const parts = i.args.split(/\s+/);
        for (const p of parts.slice(0, -1)) if (!['apps', 'packages', 'scripts'].includes(p)) cpSync(join(root, p), join(src, p), { recursive: true, filter: (f) => !/\/node_modules(\/|$)/.test(f) });
      }
      for (const pkg of workspaceClosure()) {
        for (const part of ['bin', 'dist']) if (existsSync(join(root, pkg, part))) cpSync(join(root, pkg, part), join(src, pkg, part), { recursive: true });
      }
      cpSync(join(root, 'scripts'), join(src, 'scripts'), { recursive: true });
      const install = spawnSync('pnpm', ['install', '--frozen-lockfile', '--prod', '--offline', '--filter', 'windlass...'], { cwd: src, encoding: 'utf8', timeout: 60000 });
      expect(install.status === 0 ? 'ok' : install.stdout + install.stderr).toBe('ok');
      // The runtime stage: exactly its COPY lines.
      const app = join(dir, 'app');
      for (const c of runtimeCopies) {
        const dest = join(app, c.dest.replace(/^\/app\/?/, ''));
        mkdirSync(dirname(dest), { recursive: true });
        cpSync(join(src, c.repoPath), dest, { recursive: true, verbatimSymlinks: true });
      }
      const store = readdirSync(join(app, 'node_modules', '.pnpm'));
      expect(store.filter((d) => /^(typescript|jest|turbo|@kubernetes\+client-node)@/.test(d))).toEqual([]);
      expect(store.some((d) => d.startsWith('better-sqlite3@'))).toBe(true);
      removeDir(src); // nothing may resolve back into the build tree

      const bin = join(app, 'apps', 'apiserver', 'bin', 'windlass.js');
      const data = join(dir, 'data');
      const server = spawn(process.execPath, [bin, 'start', '--data-dir', data, '--secure-port', '0'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      server.stdout!.on('data', (d) => (out += d));
      server.stderr!.on('data', (d) => (out += d));
      const exited = new Promise((r) => server.once('exit', r));
      try {
        const port = await new Promise<number>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`did not start:\n${out}`)), 20000);
          server.stdout!.on('data', () => {
            const m = /secure port: (\d+)/.exec(out);
            if (m) { clearTimeout(timer); resolve(Number(m[1])); }
          });
          server.once('exit', (code) => { clearTimeout(timer); reject(new Error(`exited ${code}:\n${out}`)); });
        });
        const ready = await new Promise<string>((resolve, reject) => {
          https.get({ host: '127.0.0.1', port, path: '/readyz', ca: readFileSync(join(data, 'pki', 'ca.crt')), servername: 'localhost' }, (res) => {
            let body = '';
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve(`${res.statusCode} ${body}`));
          }).on('error', reject);
        });
        expect(ready).toBe('200 ok');
        // The memory addon loads from the image's layout (the server would run without it, silently).
        const addon = spawnSync(process.execPath, ['-e', "process.exit(require('@windlass/memory').memoryReleaseAvailable() ? 0 : 1)"], { cwd: join(app, 'apps', 'apiserver'), encoding: 'utf8' });
        expect(addon.status === 0 ? 'loads' : `status ${addon.status}: ${addon.stderr}`).toBe('loads');
      } finally {
        server.kill('SIGTERM');
        await exited;
      }
      const creds = spawnSync(process.execPath, [join(app, 'scripts', 'ha-credentials.mjs'), join(dir, 'creds')], { cwd: dir, encoding: 'utf8' });
      expect(creds.status === 0 ? 'ok' : creds.stderr).toBe('ok');
      expect(readFileSync(join(dir, 'creds', 'tokens.csv'), 'utf8').trim().split('\n')).toHaveLength(2);
    } finally {
      removeDir(dir);
    }
  }, 60000);
});

describe('docker-compose.yml', () => {
  const compose = yaml.load(read('docker-compose.yml')) as any;
  const services = compose.services as Record<string, any>;
  const startHelp = spawnSync(process.execPath, [join(root, 'apps', 'apiserver', 'bin', 'windlass.js'), 'start', '--help'], { encoding: 'utf8' }).stdout;
  const flag = (cmd: string[], name: string) => cmd.find((a) => a.startsWith(`--${name}=`))?.split('=').slice(1).join('=');

  test('three members of one etcd cluster on the official image', () => {
    const etcd = ['etcd-1', 'etcd-2', 'etcd-3'].map((n) => services[n]);
    for (const [i, s] of etcd.entries()) {
      expect(s.image).toMatch(/^(quay\.io\/coreos\/etcd|gcr\.io\/etcd-development\/etcd):v3\./);
      expect(s.environment.ETCD_NAME).toBe(`etcd-${i + 1}`);
      expect(s.environment.ETCD_INITIAL_CLUSTER.split(',').sort()).toEqual([1, 2, 3].map((k) => `etcd-${k}=http://etcd-${k}:2380`));
      expect(s.environment.ETCD_INITIAL_ADVERTISE_PEER_URLS).toBe(`http://etcd-${i + 1}:2380`);
      expect(s.healthcheck.test).toBeDefined();
    }
  });

  test('three Windlass replicas on that etcd, with one set of credentials from the init step, every flag one windlass knows', () => {
    const replicas = ['windlass-1', 'windlass-2', 'windlass-3'].map((n) => services[n]);
    const init = services.credentials;
    expect(init.build.dockerfile).toBe('deploy/Dockerfile');
    expect(init.entrypoint.slice(0, 2)).toEqual(['node', '/app/scripts/ha-credentials.mjs']);
    expect(runtimeCopies.map((c) => c.dest)).toContain('/app/scripts/ha-credentials.mjs');
    const initMount = init.volumes[0].split(':');
    for (const s of replicas) {
      expect(s.image).toBe(init.image);
      const cmd: string[] = s.command;
      expect(cmd[0]).toBe('start');
      for (const arg of cmd.slice(1)) expect(startHelp).toContain(`--${arg.slice(2).split('=')[0]} `);
      expect(flag(cmd, 'storage')).toBe('etcd');
      expect(flag(cmd, 'etcd-servers')!.split(',')).toEqual(['http://etcd-1:2379', 'http://etcd-2:2379', 'http://etcd-3:2379']);
      expect(flag(cmd, 'workers')).toBe('1');
      expect(flag(cmd, 'tls-cert-file')).toBe(`${initMount[1]}/tls.crt`);
      expect(flag(cmd, 'tls-private-key-file')).toBe(`${initMount[1]}/tls.key`);
      expect(flag(cmd, 'token-auth-file')).toBe(`${initMount[1]}/tokens.csv`);
      expect(s.volumes).toContain(`${initMount[0]}:${initMount[1]}:ro`);
      expect(s.depends_on.credentials.condition).toBe('service_completed_successfully');
      for (const e of ['etcd-1', 'etcd-2', 'etcd-3']) expect(s.depends_on[e].condition).toBe('service_healthy');
    }
    expect(Object.keys(compose.volumes)).toContain(initMount[0]);
  });

  test('HAProxy passes TLS through to every replica, checking /readyz', () => {
    const mount = (services.haproxy.volumes as string[]).find((v) => v.endsWith('/haproxy.cfg:ro'))!;
    const cfg = read(mount.split(':')[0]);
    expect(cfg).toMatch(/^\s*mode tcp$/m);
    expect(cfg).toMatch(/http-check send meth GET uri \/readyz/);
    expect(cfg).toMatch(/default-server check check-ssl/);
    const servers = [...cfg.matchAll(/^\s*server (\S+) (\S+)(.*)$/gm)];
    expect(servers.map((m) => m[2])).toEqual(['windlass-1:6443', 'windlass-2:6443', 'windlass-3:6443']);
    // Passthrough: no TLS termination on the traffic itself.
    expect(servers.every((m) => !/\sssl\b/.test(m[3]))).toBe(true);
    expect(cfg).not.toMatch(/^\s*bind .* ssl /m);
    expect(services.haproxy.ports).toContain('6443:6443');
  });

  test("Prometheus scrapes every replica's /metrics with the bearer token the init step writes", () => {
    const mount = (services.prometheus.volumes as string[]).find((v) => v.endsWith('prometheus.yml:ro'))!;
    const prom = yaml.load(read(mount.split(':')[0])) as any;
    const job = prom.scrape_configs.find((j: any) => j.job_name === 'apiserver');
    expect(job.scheme).toBe('https');
    expect(job.static_configs[0].targets).toEqual(['windlass-1:6443', 'windlass-2:6443', 'windlass-3:6443']);
    expect(job.authorization.type).toBe('Bearer');
    expect(job.authorization.credentials_file).toBe('/credentials/prometheus-token');
    expect(job.tls_config.ca_file).toBe('/credentials/pki/ca.crt');
    expect(services.prometheus.volumes).toContain('credentials:/credentials:ro');
    const script = read('scripts/ha-credentials.mjs');
    expect(script).toContain("join(dir, 'prometheus-token')");
  });
});
