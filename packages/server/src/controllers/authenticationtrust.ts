/**
 * kube's cluster authentication trust controller: `kube-system/extension-apiserver-authentication`
 * tells aggregated API servers (and webhooks built on k8s.io/apiserver) which client CA this
 * server trusts and how it proxies requests to them: the front-proxy CA its client certificate
 * chains to, the names that certificate may carry, and the identity headers. What is there is
 * combined with this replica's (replicas with other CAs add theirs, as kube's do), written only
 * when it changes, once at start and every minute.
 */
import type { RequestHeaderConfig } from '@windlass/auth';
import type { AdmissionLookup, KubeObject } from '../registry/types.js';

export interface AuthenticationTrust {
  /** PEM of --client-ca-file. */
  clientCA?: string;
  /** The front-proxy CA, allowed names and header names (the request-header authenticator's configuration). */
  requestHeader?: RequestHeaderConfig;
}

/** kube's defaults of the --requestheader-*-headers flags (kubeadm sets the same). */
export const defaultRequestHeaders = {
  usernameHeaders: ['X-Remote-User'], uidHeaders: ['X-Remote-Uid'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'],
};

const namespace = 'kube-system';
const name = 'extension-apiserver-authentication';

const pemBlocks = (bundle: string | undefined) => (bundle ?? '').match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];

/** combineCertLists: each certificate once, the stored ones first. */
function combineCAs(stored: string | undefined, ours: string | undefined): string {
  const blocks = [...new Set([...pemBlocks(stored), ...pemBlocks(ours)].map((b) => b.trim()))];
  return blocks.length ? `${blocks.join('\n')}\n` : '';
}

function combineSlices(stored: string | undefined, ours: string[]): string {
  let prior: string[] = [];
  try {
    const parsed = stored ? (JSON.parse(stored) as unknown) : [];
    if (Array.isArray(parsed)) prior = parsed.filter((x): x is string => typeof x === 'string');
  } catch {
    // Unreadable: replaced by ours (kube would fail its sync and retry; there is nothing to keep).
  }
  return JSON.stringify([...new Set([...prior, ...ours])]);
}

/** getConfigMapDataFor over the stored data combined with this replica's. */
export function authenticationData(stored: Record<string, string>, t: AuthenticationTrust): Record<string, string> {
  const data: Record<string, string> = {};
  const clientCA = combineCAs(stored['client-ca-file'], t.clientCA);
  if (clientCA) data['client-ca-file'] = clientCA;
  const rh = t.requestHeader;
  const requestHeaderCA = combineCAs(stored['requestheader-client-ca-file'], rh?.clientCA);
  if (!requestHeaderCA) return data;
  data['requestheader-username-headers'] = combineSlices(stored['requestheader-username-headers'], rh?.usernameHeaders ?? []);
  data['requestheader-uid-headers'] = combineSlices(stored['requestheader-uid-headers'], rh?.uidHeaders ?? []);
  data['requestheader-group-headers'] = combineSlices(stored['requestheader-group-headers'], rh?.groupHeaders ?? []);
  data['requestheader-extra-headers-prefix'] = combineSlices(stored['requestheader-extra-headers-prefix'], rh?.extraHeaderPrefixes ?? []);
  data['requestheader-client-ca-file'] = requestHeaderCA;
  data['requestheader-allowed-names'] = combineSlices(stored['requestheader-allowed-names'], rh?.allowedNames ?? []);
  return data;
}

const sameData = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

export class AuthenticationTrustController {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(private readonly configMaps: () => AdmissionLookup | undefined, private readonly trust: AuthenticationTrust) {}

  start(): void {
    this.sync();
    this.timer = setInterval(() => this.sync(), 60_000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private sync(): void {
    if (this.running) return;
    this.running = this.syncOnce().catch((err: unknown) => {
      console.error(`cluster_authentication_trust_controller: ${(err as Error).message}`);
    }).finally(() => { this.running = undefined; });
  }

  private async syncOnce(): Promise<void> {
    const lookup = this.configMaps();
    if (!lookup) return;
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = await lookup.get(namespace, name);
      const stored = (current?.data ?? {}) as Record<string, string>;
      const data = authenticationData(stored, this.trust);
      if (current && sameData(stored, data)) return;
      try {
        if (current) await lookup.update!(namespace, { ...current, data } as KubeObject);
        else await lookup.create(namespace, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data });
        return;
      } catch (err) {
        // Another replica wrote it meanwhile: combine with theirs.
        if ((err as { code?: number }).code !== 409) throw err;
      }
    }
  }
}
