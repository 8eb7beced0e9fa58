/**
 * The admission configured at run time, in kube's plugin order: each stage (policies, webhooks)
 * in turn, mutating stages first in the mutating phase, then every validating stage. A stage
 * with nothing configured returns at once, so writes pay nothing until policies or webhooks exist.
 */
import type { DynamicAdmission, DynamicAdmissionAttributes } from '../registry/types.js';

export interface AdmissionStage {
  name: string;
  /** Whether anything is configured (a policy, a webhook configuration). */
  active(): boolean;
  mutate?(attrs: DynamicAdmissionAttributes): Promise<void>;
  validate?(attrs: DynamicAdmissionAttributes): Promise<void>;
}

export class DynamicAdmissionChain implements DynamicAdmission {
  private readonly stages: AdmissionStage[] = [];

  /** Adds a stage after those added before (kube: MutatingAdmissionPolicy, MutatingAdmissionWebhook, ValidatingAdmissionPolicy, ValidatingAdmissionWebhook). */
  add(stage: AdmissionStage): void {
    this.stages.push(stage);
  }

  active(): boolean {
    return this.stages.some((s) => s.active());
  }

  async mutate(attrs: DynamicAdmissionAttributes): Promise<void> {
    for (const s of this.stages) if (s.mutate && s.active()) await s.mutate(attrs);
  }

  async validate(attrs: DynamicAdmissionAttributes): Promise<void> {
    for (const s of this.stages) if (s.validate && s.active()) await s.validate(attrs);
  }
}
