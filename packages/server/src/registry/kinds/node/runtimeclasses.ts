/**
 * node.k8s.io/v1 RuntimeClasses: ValidateRuntimeClass(Update) (a DNS-label handler, fixed once
 * created; pod overhead as container limits; scheduling node selector and tolerations, the
 * latter at kube's doubled `scheduling.tolerations.tolerations` path), the printer.
 */
import { fieldErr, isDNS1123Label, validateLabels, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { validateTolerations, goTolerationRepr } from '../../validation/tolerations.js';
import { validateMetadataKubeFinalizers } from '../../validation/finalizers.js';
import { validateContainerResources } from '../core/podspec/resources.js';
import { runtimeClassWarnings } from './warnings.js';

type Obj = Record<string, unknown>;
type RuntimeClass = KubeObject & { handler?: unknown; overhead?: unknown; scheduling?: unknown };
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function validateScheduling(s: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (isObject(s.nodeSelector)) errs.push(...validateLabels(s.nodeSelector, 'scheduling.nodeSelector'));
  const path = 'scheduling.tolerations';
  errs.push(...validateTolerations(s.tolerations, `${path}.tolerations`));
  // Tolerations are a list keyed by key, operator, value and effect.
  const seen = new Set<string>();
  (Array.isArray(s.tolerations) ? s.tolerations : []).forEach((t, i) => {
    const o = isObject(t) ? t : {};
    const key = JSON.stringify([o.key ?? '', o.operator ?? '', o.value ?? '', o.effect ?? '']);
    if (seen.has(key)) errs.push({ type: 'FieldValueDuplicate', field: `${path}[${i}]`, detail: `Duplicate value: ${goTolerationRepr(o)}` });
    seen.add(key);
  });
  return errs;
}

function validateRuntimeClass(rc: RuntimeClass): FieldError[] {
  const errs = validateMetadataKubeFinalizers(rc.metadata);
  const handler = typeof rc.handler === 'string' ? rc.handler : '';
  for (const m of isDNS1123Label(handler)) errs.push(fieldErr.invalid('handler', handler, m));
  if (isObject(rc.overhead)) errs.push(...validateContainerResources({ limits: rc.overhead.podFixed }, new Set(), 'overhead'));
  if (isObject(rc.scheduling)) errs.push(...validateScheduling(rc.scheduling));
  return errs;
}

export const runtimeClasses: KindDefinition = {
  group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses',
  strategy: {
    warningsOnCreate: runtimeClassWarnings,
    warningsOnUpdate: (rc) => runtimeClassWarnings(rc),
    nameValidator: nameIsDNSSubdomain,
    validate: (o) => validateRuntimeClass(o as RuntimeClass),
    validateUpdate(o, old) {
      const rc = o as RuntimeClass;
      const errs = validateRuntimeClass(rc);
      if ((rc.handler ?? '') !== ((old as RuntimeClass).handler ?? '')) errs.push(fieldErr.invalid('handler', rc.handler ?? '', 'field is immutable'));
      return errs;
    },
  },
  table: {
    columns: [column('Handler', 'string', 'Handler is the name of the underlying runtime and configuration that the CRI implementation will use to handle pods of this class. The possible values are specific to the node & CRI configuration.  It is assumed that all handlers are available on every node, and handlers of the same name are equivalent on every node. For example, a handler called "runc" might specify that the runc (using the runc CRI implementation) will be used to handle pods of this class. The Handler must be lowercase, conform to the DNS Label (RFC 1123) requirements, and is immutable.'), ageColumn],
    cells: (o) => [typeof (o as RuntimeClass).handler === 'string' ? (o as RuntimeClass).handler : '', ageOf(o.metadata.creationTimestamp)],
  },
};
