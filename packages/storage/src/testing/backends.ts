import { EmbeddedStorage } from '../embedded.js';
import { EtcdStorage } from '../etcd.js';
import type { Storage } from '../types.js';
import { startEtcd, type EtcdServer } from './etcd.js';

/**
 * Jest helpers: they call describe/beforeAll/... and so must only run inside jest.
 * (startEtcd lives in etcd.ts, free of jest, for scripts and benchmarks.)
 */

export type BackendName = 'embedded' | 'etcd';

export interface BackendContext {
  readonly backend: BackendName;
  /** A fresh Storage for the current test, closed after it. */
  readonly storage: Storage;
  /**
   * A key prefix unique to the current test ('/t<n>/'). Tests on etcd share one server
   * per file, so put every key under it.
   */
  readonly prefix: string;
  /** Open another Storage on the same data (etcd only; embedded ':memory:' cannot share). */
  open(): Promise<Storage>;
}

export interface DescribeBackendsOptions {
  /** Which backends to run; default: $WINDLASS_STORAGE_BACKENDS (comma-separated) or both. */
  backends?: BackendName[];
}

/** One etcd per test file (jest gives each file its own module instance), started on first use. */
let sharedEtcd: Promise<EtcdServer> | undefined;
/** Unique per file, not per describe block: blocks of one file share its etcd. */
let testCounter = 0;

function selectedBackends(): BackendName[] {
  const env = process.env.WINDLASS_STORAGE_BACKENDS;
  if (!env) return ['embedded', 'etcd'];
  return env.split(',').map((s) => s.trim()).filter((s): s is BackendName => s === 'embedded' || s === 'etcd');
}

/** Run the `fn` describe block once per backend: embedded ':memory:' and a real etcd. */
export function describeBackends(name: string, fn: (ctx: BackendContext) => void, opts: DescribeBackendsOptions = {}): void {
  const backends = opts.backends ?? selectedBackends();
  // Registered here, at the caller's level (normally the file's top level), so the
  // server outlives every describe block of the file.
  if (backends.includes('etcd')) {
    afterAll(async () => {
      const server = sharedEtcd;
      sharedEtcd = undefined;
      if (server) await (await server).stop();
    });
  }
  for (const backend of backends) {
    describe(`${name} [${backend}]`, () => {
      let server: EtcdServer | undefined;
      let current: Storage | undefined;
      let extra: Storage[] = [];
      let prefix = '';

      const open = async (): Promise<Storage> => {
        if (backend === 'embedded') {
          if (current) throw new Error('embedded :memory: storage cannot be opened twice');
          return new EmbeddedStorage({ path: ':memory:' });
        }
        return EtcdStorage.connect({ endpoints: server!.endpoints });
      };

      if (backend === 'etcd') {
        beforeAll(async () => {
          sharedEtcd ??= startEtcd();
          server = await sharedEtcd;
        }, 60_000);
      }
      beforeEach(async () => {
        prefix = `/t${++testCounter}/`;
        current = await open();
      });
      afterEach(async () => {
        await Promise.all([current, ...extra].map((s) => s?.close()));
        current = undefined;
        extra = [];
      });

      fn({
        backend,
        get storage(): Storage {
          if (!current) throw new Error('storage is only available inside a test');
          return current;
        },
        get prefix(): string {
          return prefix;
        },
        open: async () => {
          const s = await open();
          extra.push(s);
          return s;
        },
      });
    });
  }
}
