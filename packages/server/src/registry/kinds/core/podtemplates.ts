/**
 * PodTemplates (pkg/registry/core/podtemplate): a template with the pod-spec defaults, validated
 * as ValidatePodTemplate does, whose generation counts template changes; `kubectl get
 * podtemplates` shows its containers, images and pod labels.
 */
import { fieldErr, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { column } from '../common.js';
import { defaultPodTemplateSpec, validatePodTemplateSpec, validatePodTemplateSpecUpdate } from './podspec/index.js';
import { podTemplateWarnings } from './podspec/warnings.js';
import { podSecurityControllerAdmission } from '../../../admission/podsecurity.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Json => (isObject(v) ? v : {});
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** layoutContainerCells: container names and images, comma-separated. */
export function containerCells(spec: unknown): [string, string] {
  const containers = list(obj(spec).containers);
  return [containers.map((c) => String(c.name ?? '')).join(','), containers.map((c) => String(c.image ?? '')).join(',')];
}

/** labels.FormatLabels: `k=v` pairs sorted by key, `<none>` when empty. */
export function formatLabels(labels: unknown): string {
  const entries = Object.entries(obj(labels)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? '<none>' : entries.map(([k, v]) => `${k}=${String(v)}`).join(',');
}

function templateOf(obj0: KubeObject): Json {
  if (!isObject(obj0.template)) obj0.template = {};
  return obj0.template as Json;
}

function validateTemplate(t: KubeObject): FieldError[] {
  if (!isObject(t.template)) return [fieldErr.required('template.spec.containers')];
  return validatePodTemplateSpec(t.template, 'template');
}

export const podTemplates: KindDefinition = {
  group: '', version: 'v1', resource: 'podtemplates',
  admission: [podSecurityControllerAdmission],
  generation: true,
  strategy: {
    nameValidator: nameIsDNSSubdomain,
    defaults: (t) => defaultPodTemplateSpec(templateOf(t)),
    prepareForUpdate(t, old) {
      // kube bumps the generation when the template (this kind has no spec) changes.
      if (JSON.stringify(t.template ?? null) !== JSON.stringify(old.template ?? null)) t.metadata.generation = (old.metadata.generation ?? 1) + 1;
    },
    validate: validateTemplate,
    validateUpdate: (t, old) => validatePodTemplateSpecUpdate(obj(t.template), isObject(old.template) ? old.template : undefined, 'template'),
    warningsOnCreate: (t) => podTemplateWarnings('template', t.template),
    warningsOnUpdate: (t, old) => (t.metadata.generation !== old.metadata.generation ? podTemplateWarnings('template', t.template) : []),
  },
  table: {
    columns: [
      column('Containers', 'string', 'Names of each container in the template.'),
      column('Images', 'string', 'Images referenced by each container in the template.'),
      column('Pod Labels', 'string', 'The labels for the pod template.'),
    ],
    cells: (t) => {
      const template = obj(t.template);
      return [...containerCells(template.spec), formatLabels(obj(template.metadata).labels)];
    },
  },
};
