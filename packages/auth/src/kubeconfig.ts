import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import yaml from 'js-yaml';
import { writeFileAtomic } from './fsutil.js';

export interface KubeconfigOptions {
  /** The API server URL, e.g. https://127.0.0.1:6443. */
  server: string;
  /** PEM of the CA to trust; omitted, clients fall back to the system trust store. */
  caCertPem?: string;
  /** The user's credentials: a bearer token, or a client certificate and its key (PEM). */
  token?: string;
  clientCertPem?: string;
  clientKeyPem?: string;
  clusterName?: string;
  userName?: string;
  contextName?: string;
  namespace?: string;
}

/** The subset of client-go's clientcmd v1 Config this writes. */
export interface Kubeconfig {
  apiVersion: 'v1';
  kind: 'Config';
  clusters: { name: string; cluster: { server: string; 'certificate-authority-data'?: string } }[];
  contexts: { name: string; context: { cluster: string; user: string; namespace?: string } }[];
  'current-context': string;
  preferences: Record<string, never>;
  users: { name: string; user: { token: string } | { 'client-certificate-data': string; 'client-key-data': string } }[];
}

export const DEFAULT_KUBECONFIG_NAME = 'windlass';

/** A single-cluster, single-user kubeconfig whose current context points at the server. */
export function buildKubeconfig(opts: KubeconfigOptions): Kubeconfig {
  if (!opts.server) throw new TypeError('buildKubeconfig: server is required');
  const certificate = opts.clientCertPem !== undefined && opts.clientKeyPem !== undefined;
  if (!opts.token && !certificate) throw new TypeError('buildKubeconfig: a token or a client certificate and key is required');
  const clusterName = opts.clusterName || DEFAULT_KUBECONFIG_NAME;
  const userName = opts.userName || DEFAULT_KUBECONFIG_NAME;
  const contextName = opts.contextName || DEFAULT_KUBECONFIG_NAME;

  const cluster: Kubeconfig['clusters'][number]['cluster'] = { server: opts.server };
  // kubeconfig carries the PEM text itself base64-encoded, not the DER.
  if (opts.caCertPem) cluster['certificate-authority-data'] = Buffer.from(opts.caCertPem, 'utf8').toString('base64');
  const context: Kubeconfig['contexts'][number]['context'] = { cluster: clusterName, user: userName };
  if (opts.namespace) context.namespace = opts.namespace;

  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: clusterName, cluster }],
    contexts: [{ name: contextName, context }],
    'current-context': contextName,
    preferences: {},
    users: [{
      name: userName,
      // Like the CA, the certificate and key travel as their PEM text base64-encoded.
      user: opts.token
        ? { token: opts.token }
        : { 'client-certificate-data': Buffer.from(opts.clientCertPem!, 'utf8').toString('base64'), 'client-key-data': Buffer.from(opts.clientKeyPem!, 'utf8').toString('base64') },
    }],
  };
}

/**
 * Writes the kubeconfig (mode 0600: it holds a token or a key), replacing the file whole rather
 * than merging, since the file belongs to this server.
 */
export async function writeKubeconfig(path: string, opts: KubeconfigOptions): Promise<void> {
  const text = yaml.dump(buildKubeconfig(opts), { lineWidth: -1, noRefs: true });
  // 0755 like client-go's clientcmd, which creates ~/.kube the same way.
  await mkdir(dirname(path), { recursive: true, mode: 0o755 });
  await writeFileAtomic(path, text, 0o600);
}
