/**
 * Warnings of the core/v1 Secret and ServiceAccount strategies (Kubernetes 1.35
 * pkg/registry/core/secret and pkg/registry/core/serviceaccount): a TLS Secret whose
 * certificate and key are not a pair, on every create and update; the deprecated
 * enforce-mountable-secrets annotation, only when a write newly sets it.
 */
import type { KubeObject } from '../../types.js';
import { x509KeyPairError } from './tlskeypair.js';

/** warningsForSecret. */
export function secretWarnings(secret: KubeObject): string[] {
  if (secret.type !== 'kubernetes.io/tls') return [];
  const data = (secret.data ?? {}) as Record<string, unknown>;
  const bytes = (key: string) => Buffer.from(typeof data[key] === 'string' ? data[key] : '', 'base64');
  const err = x509KeyPairError(bytes('tls.crt'), bytes('tls.key'));
  return err === undefined ? [] : [err];
}

const enforceMountableSecrets = 'kubernetes.io/enforce-mountable-secrets';

/** warnIfHasEnforceMountableSecretsAnnotation: the key's presence counts, whatever its value. */
export function serviceAccountWarnings(sa: KubeObject, old?: KubeObject): string[] {
  if (old && enforceMountableSecrets in (old.metadata.annotations ?? {})) return [];
  if (!(enforceMountableSecrets in (sa.metadata.annotations ?? {}))) return [];
  return [`metadata.annotations[${enforceMountableSecrets}]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets`];
}
