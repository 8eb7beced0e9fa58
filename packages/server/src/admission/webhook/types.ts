/**
 * The admissionregistration.k8s.io/v1 webhook fields admission reads (kube's
 * webhook.WebhookAccessor over MutatingWebhook and ValidatingWebhook), as stored: defaulted
 * and validated when their configuration was written.
 */
import type { LabelSelectorObject } from '@windlass/machinery';
import type { MatchCondition } from '../matchconditions.js';

export interface Rule {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  port?: number;
}

/** kube's WebhookClientConfig (also the CRD conversion webhook's). */
export interface ClientConfig {
  url?: string;
  service?: ServiceReference;
  /** Base64 PEM bundle; absent: the system's roots. */
  caBundle?: string;
}

export type { MatchCondition };

export interface Webhook {
  name: string;
  clientConfig: ClientConfig;
  rules?: Rule[];
  failurePolicy?: 'Fail' | 'Ignore';
  matchPolicy?: 'Exact' | 'Equivalent';
  namespaceSelector?: LabelSelectorObject;
  objectSelector?: LabelSelectorObject;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  matchConditions?: MatchCondition[];
  /** Mutating webhooks only. */
  reinvocationPolicy?: 'Never' | 'IfNeeded';
}

/** One webhook of a configuration, with what matching compiled from it once. */
export interface WebhookAccessor {
  /** kube's accessor UID: `<configuration>/<webhook>/<index>`, unique across configurations. */
  uid: string;
  configurationName: string;
  webhook: Webhook;
  mutating: boolean;
}
