/**
 * The pod spec shared by every kind that embeds one (Pod, PodTemplate, ReplicationController,
 * Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob): kube's SetDefaults_PodSpec
 * family and ValidatePodSpec / ValidatePodTemplateSpec, ported from pkg/apis/core.
 *
 * The contract other groups build on: defaultPodSpec, defaultPodTemplateSpec,
 * validatePodTemplateSpec (and validatePodTemplateSpecUpdate for updates, which keeps
 * allowed what the old template already used).
 */
export type { JsonObject } from './util.js';
export { defaultPod, defaultPodSpec, defaultPodTemplateSpec, imageTag } from './defaults.js';
export {
  validatePodSpec, validatePodTemplateSpec, validatePodTemplateSpecUpdate, validationOptionsFor, type PodValidationOptions,
} from './validation.js';
export { validatePodCreate, validatePodMeta, preparePodForCreate, convertPodStatusIPs } from './pod.js';
export { validatePodUpdate, validatePodStatusUpdate, validatePodEphemeralContainersUpdate } from './update.js';
export { podQOSClass } from './resources.js';
export { resizedSpec, validatePodResize } from './resize.js';
