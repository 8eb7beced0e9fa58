/**
 * apiregistration.k8s.io/v1 APIService (k8s.io/kube-aggregator): the name must be
 * version.group, local services are always Available, status writes keep spec and labels;
 * kube-aggregator's validation and printer.
 */
import { fieldErr, isDNS1035Label, isDNS1123Subdomain, newBadRequest, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject, StatusStrategy } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { nameIsPathSegment } from '../../names.js';
import { arr, isObj, obj, str, type Json } from '../networking/util.js';
import { portNumErrors } from '../networking/ip.js';
import { goBase64ErrorOffset } from '../certificates/base64.js';

function now(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

function validateAPIService(o: KubeObject): FieldError[] {
  const spec = obj(o.spec);
  const group = str(spec.group), version = str(spec.version);
  const errs: FieldError[] = [];
  const name = o.metadata.name ?? '';
  // The name rule: a path segment first, then exactly version.group.
  const required = `${version}.${group}`;
  if (name !== '' && nameIsPathSegment(name, false).length === 0 && name !== required) {
    errs.push(fieldErr.invalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(required)}`));
  }
  if (group.length === 0 && version !== 'v1') errs.push(fieldErr.required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group.length > 0) for (const msg of isDNS1123Subdomain(group)) errs.push(fieldErr.invalid('spec.group', group, msg));
  for (const msg of isDNS1035Label(version)) errs.push(fieldErr.invalid('spec.version', version, msg));
  const groupPriority = typeof spec.groupPriorityMinimum === 'number' ? spec.groupPriorityMinimum : 0;
  if (groupPriority <= 0 || groupPriority > 20000) errs.push(fieldErr.invalid('spec.groupPriorityMinimum', groupPriority, 'must be positive and less than 20000'));
  const versionPriority = typeof spec.versionPriority === 'number' ? spec.versionPriority : 0;
  if (versionPriority <= 0 || versionPriority > 1000) errs.push(fieldErr.invalid('spec.versionPriority', versionPriority, 'must be positive and less than 1000'));
  const caBundle = Buffer.from(str(spec.caBundle), 'base64');
  const insecure = spec.insecureSkipTLSVerify === true;
  if (!isObj(spec.service)) {
    if (caBundle.length !== 0) errs.push(fieldErr.invalid('spec.caBundle', `${caBundle.length} bytes`, 'local APIServices may not have a caBundle'));
    if (insecure) errs.push(fieldErr.invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  const svc = spec.service;
  if (str(svc.namespace).length === 0) errs.push(fieldErr.required('spec.service.namespace'));
  if (str(svc.name).length === 0) errs.push(fieldErr.required('spec.service.name'));
  const port = typeof svc.port === 'number' ? svc.port : 0;
  const portErrs = portNumErrors(port);
  if (portErrs.length) errs.push(fieldErr.invalid('spec.service.port', port, `port is not valid: ${portErrs.join(', ')}`));
  if (insecure && caBundle.length > 0) errs.push(fieldErr.invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return errs;
}

const statusStrategy: StatusStrategy = {
  prepareForUpdate(o, old) {
    for (const key of Object.keys(o)) if (key !== 'status' && key !== 'metadata' && key !== 'apiVersion' && key !== 'kind' && !(key in old)) delete o[key];
    for (const key of Object.keys(old)) if (key !== 'status' && key !== 'metadata' && key !== 'apiVersion' && key !== 'kind') o[key] = old[key];
    // kube-aggregator's status strategy also keeps these from the stored object.
    for (const key of ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const) {
      if (old.metadata[key] === undefined) delete o.metadata[key];
      else o.metadata[key] = structuredClone(old.metadata[key]) as never;
    }
  },
  validateUpdate(o) {
    return arr(obj(o.status).conditions).flatMap((raw, i) => {
      const status = str(obj(raw).status);
      return ['True', 'False', 'Unknown'].includes(status) ? [] : [fieldErr.notSupported(`status.conditions[${i}].status`, status, ['True', 'False', 'Unknown'])];
    });
  },
};

function availableCell(o: KubeObject): string {
  const c = arr(obj(o.status).conditions).map(obj).find((x) => x.type === 'Available');
  if (!c) return 'Unknown';
  if (c.status === 'True') return 'True';
  return str(c.reason) ? `${str(c.status)} (${str(c.reason)})` : str(c.status);
}

export const apiServices: KindDefinition = {
  group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices',
  strategy: {
    nameValidator: nameIsPathSegment,
    defaults(o) {
      const svc = obj(o.spec).service;
      if (isObj(svc)) svc.port ??= 443;
    },
    normalize(o) {
      const spec = obj(o.spec);
      if (typeof spec.caBundle !== 'string') return;
      const at = goBase64ErrorOffset(spec.caBundle);
      if (at !== undefined) throw newBadRequest(`APIService in version "v1" cannot be handled as a APIService: illegal base64 data at input byte ${at}`);
      spec.caBundle = Buffer.from(spec.caBundle, 'base64').toString('base64');
    },
    prepareForCreate(o) {
      const status: Json = {};
      // A local APIService (no service) is served by this server and always available.
      if (!isObj(obj(o.spec).service)) {
        status.conditions = [{ type: 'Available', status: 'True', lastTransitionTime: now(), reason: 'Local', message: 'Local APIServices are always available' }];
      }
      o.status = status;
    },
    validate: validateAPIService,
    validateUpdate: (o) => validateAPIService(o),
  },
  subresourceStrategies: { status: statusStrategy },
  table: {
    columns: [
      column('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
      column('Available', 'string', 'Whether this service is available.'),
      ageColumn,
    ],
    cells: (o) => {
      const svc = obj(o.spec).service;
      return [isObj(svc) ? `${str(svc.namespace)}/${str(svc.name)}` : 'Local', availableCell(o), ageOf(o.metadata.creationTimestamp)];
    },
  },
};
