import type { KindDefinition } from '../../types.js';
import { mutatingWebhookConfigurations, validatingWebhookConfigurations } from './webhooks.js';
import { validatingAdmissionPolicies, validatingAdmissionPolicyBindings } from './policies.js';

export const definitions: KindDefinition[] = [
  mutatingWebhookConfigurations, validatingWebhookConfigurations, validatingAdmissionPolicies, validatingAdmissionPolicyBindings,
];
