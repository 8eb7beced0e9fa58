/**
 * What request authentication needs from the server: service account tokens look up the
 * objects they name through the watch caches (the store on a miss, as kube's token getter
 * falls back to a live lookup), and legacy token use is recorded on the token's Secret.
 */
import type { BoundResource, ObjectRef, ServiceAccountTokenGetter } from '@windlass/auth';
import { LEGACY_TOKEN_LAST_USED_LABEL } from '@windlass/auth';
import type { StoreContext } from '../registry/types.js';

export function serviceAccountTokenGetter(lookup: StoreContext['lookup']): ServiceAccountTokenGetter {
  return {
    get: async (resource: BoundResource, namespace: string, name: string) => (await lookup('', resource)?.get(namespace, name)) as ObjectRef | undefined,
    markLegacyTokenUsed: async (namespace, name, date) => {
      const secrets = lookup('', 'secrets');
      const secret = await secrets?.get(namespace, name);
      if (!secrets?.update || !secret || secret.metadata.labels?.[LEGACY_TOKEN_LAST_USED_LABEL] === date) return;
      secret.metadata.labels = { ...(secret.metadata.labels ?? {}), [LEGACY_TOKEN_LAST_USED_LABEL]: date };
      // Conditional on the version read: a concurrent writer wins, and the next use tries again.
      await secrets.update(namespace, secret);
    },
  };
}
