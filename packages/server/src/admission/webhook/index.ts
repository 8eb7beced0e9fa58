/**
 * Admission webhooks as kube-apiserver 1.35 calls them: MutatingAdmissionWebhook in the mutating
 * phase, ValidatingAdmissionWebhook in the validating phase (after ValidatingAdmissionPolicy, whose
 * stage is added first), both over the configurations this replica's watch caches hold. On DELETE,
 * which reaches dynamic admission only for validation, the mutating webhooks are called first, as
 * kube's delete handler runs mutating admission before validating (they can only refuse: there is
 * no object to patch). The stage also hands the CRD controller the client its conversion webhooks
 * are called with (crd/conversionwebhook.ts), as the same ServiceResolver serves both.
 */
import { newNotFound } from '@windlass/machinery';
import type { AdmissionStage } from '../dynamic.js';
import type { Store } from '../../registry/store.js';
import type { AdmissionLookup, DynamicAdmissionAttributes, ResourceDefinition } from '../../registry/types.js';
import type { ServiceResolver } from './client.js';
import type { Authorizer } from '../../rbac/types.js';
import { isExempt, type MatchContext } from './matching.js';
import { dispatchMutating } from './mutating.js';
import { endpointServiceResolver } from './serviceresolver.js';
import { WebhookSource } from './source.js';
import { dispatchValidating } from './validating.js';

export interface WebhookHost {
  registry: { all(): ResourceDefinition[] };
  storeFor(group: string, version: string, resource: string): Store | undefined;
  lookup(group: string, resource: string): AdmissionLookup | undefined;
  /** Receives the service resolver for CRD conversion webhooks. */
  crdController?: { conversionResolver?: ServiceResolver };
  /** The server's authorizer, for matchConditions' `authorizer`. */
  authorizer?(): Authorizer | undefined;
}

const group = 'admissionregistration.k8s.io';

export function webhookStage(host: WebhookHost): AdmissionStage {
  const mutating = new WebhookSource(() => host.storeFor(group, 'v1', 'mutatingwebhookconfigurations')?.cacher, true);
  const validating = new WebhookSource(() => host.storeFor(group, 'v1', 'validatingwebhookconfigurations')?.cacher, false);
  const resolver = endpointServiceResolver((g, r) => host.lookup(g, r));
  if (host.crdController) host.crdController.conversionResolver = resolver;
  const storedAt = (d: ResourceDefinition) => `${d.conversion?.storageGroup ?? d.group}/${d.keyPrefix ?? d.resource}`;
  const ctx: MatchContext = {
    equivalents: (def) => host.registry.all().filter((d) => d.stored !== false && storedAt(d) === storedAt(def)),
    namespaceLabels: async (name) => {
      const ns = await host.lookup('', 'namespaces')?.get('', name);
      if (!ns) throw newNotFound({ group: '', resource: 'namespaces' }, name);
      return ns.metadata.labels;
    },
    authorizer: host.authorizer,
  };
  const mutate = async (a: DynamicAdmissionAttributes) => {
    if (isExempt(a.def) || !mutating.any()) return;
    await dispatchMutating(mutating.webhooks(), a, ctx, resolver);
  };
  return {
    name: 'AdmissionWebhooks',
    active: () => mutating.any() || validating.any(),
    mutate,
    async validate(a) {
      if (isExempt(a.def)) return;
      if (a.operation === 'DELETE') await mutate(a);
      if (validating.any()) await dispatchValidating(validating.webhooks(), a, ctx, resolver);
    },
  };
}
