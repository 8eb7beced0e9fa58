/**
 * The pod spec shared by every kind that embeds one (Pod, PodTemplate, ReplicationController,
 * Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob): kube's SetDefaults_PodSpec
 * family and ValidatePodSpec / ValidatePodTemplateSpec, ported.
 *
 * The contract other groups build on; bodies are being filled in.
 */
import type { FieldError } from '@windlass/machinery';

export type JsonObject = Record<string, unknown>;

/** Defaults of a pod spec and everything in it (containers, volumes, probes, ports…), as kube's generated SetObjectDefaults walks them. */
export function defaultPodSpec(_spec: JsonObject): void {}

/** Defaults of a pod template (its spec's, as defaultPodSpec). */
export function defaultPodTemplateSpec(template: JsonObject): void {
  const spec = template.spec;
  if (spec && typeof spec === 'object') defaultPodSpec(spec as JsonObject);
}

/** ValidatePodTemplateSpec: errors under `path` (e.g. `spec.template`). */
export function validatePodTemplateSpec(_template: JsonObject, _path: string): FieldError[] {
  return [];
}
