/**
 * networking.k8s.io/v1 IngressClass: the parameters scope default, kube's validation (the
 * controller is immutable) and its printer.
 */
import { fieldErr, isDNS1123Label, isDNS1123Subdomain, type FieldError } from '@windlass/machinery';
import type { KindDefinition } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { isObj, obj, pathSegmentErrors, str, type Json } from './util.js';

const maxControllerLength = 250;
const httpPathFmt = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const httpPathRe = new RegExp(`^${httpPathFmt}$`);

/** IsDomainPrefixedPath: `acme.io/foo`. */
export function validateDomainPrefixedPath(path: string, value: string): FieldError[] {
  if (value.length === 0) return [fieldErr.required(path)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host.length === 0 || rest.length === 0) return [fieldErr.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDNS1123Subdomain(host).map((msg) => fieldErr.invalid(path, host, msg));
  if (!httpPathRe.test(rest)) errs.push(fieldErr.invalid(path, rest, `Invalid path (regex used for validation is '${httpPathFmt}')`));
  return errs;
}

function validateParameters(params: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof params.apiGroup === 'string') {
    for (const msg of isDNS1123Subdomain(params.apiGroup)) errs.push(fieldErr.invalid(`${path}.apiGroup`, params.apiGroup, msg));
  }
  for (const key of ['kind', 'name'] as const) {
    const v = str(params[key]);
    if (v === '') errs.push(fieldErr.required(`${path}.${key}`));
    else for (const msg of pathSegmentErrors(v)) errs.push(fieldErr.invalid(`${path}.${key}`, v, msg));
  }
  if (typeof params.scope !== 'string') {
    errs.push(fieldErr.required(`${path}.scope`));
    return errs;
  }
  const scope = params.scope;
  if (scope !== 'Cluster' && scope !== 'Namespace') {
    errs.push(fieldErr.notSupported(`${path}.scope`, scope, ['Cluster', 'Namespace']));
    return errs;
  }
  if (scope === 'Namespace') {
    if (typeof params.namespace !== 'string') errs.push(fieldErr.required(`${path}.namespace`, "`parameters.scope` is set to 'Namespace'"));
    else for (const msg of isDNS1123Label(params.namespace)) errs.push(fieldErr.invalid(`${path}.namespace`, params.namespace, msg));
  }
  if (scope === 'Cluster' && typeof params.namespace === 'string') errs.push(fieldErr.forbidden(`${path}.namespace`, "`parameters.scope` is set to 'Cluster'"));
  return errs;
}

export function validateIngressClassSpec(spec: Json): FieldError[] {
  const errs: FieldError[] = [];
  const controller = str(spec.controller);
  if (controller === '') errs.push(fieldErr.required('spec.controller'));
  else {
    if (Buffer.byteLength(controller) > maxControllerLength) errs.push(fieldErr.tooLong('spec.controller', maxControllerLength));
    errs.push(...validateDomainPrefixedPath('spec.controller', controller));
  }
  if (isObj(spec.parameters)) errs.push(...validateParameters(spec.parameters, 'spec.parameters'));
  return errs;
}

export const ingressClasses: KindDefinition = {
  group: 'networking.k8s.io', version: 'v1', resource: 'ingressclasses',
  generation: true,
  strategy: {
    defaults(o) {
      const params = obj(o.spec).parameters;
      if (isObj(params) && params.scope === undefined) params.scope = 'Cluster';
    },
    validate: (o) => validateIngressClassSpec(obj(o.spec)),
    validateUpdate(o, old) {
      const errs: FieldError[] = [];
      const controller = str(obj(o.spec).controller), oldController = str(obj(old.spec).controller);
      if (controller !== oldController) errs.push(fieldErr.invalid('spec.controller', controller, 'field is immutable'));
      return [...errs, ...validateIngressClassSpec(obj(o.spec))];
    },
  },
  table: {
    columns: [
      column('Controller', 'string', 'Controller that is responsible for handling this class'),
      column('Parameters', 'string', 'A reference to a resource with additional parameters'),
      ageColumn,
    ],
    cells: (o) => {
      const spec = obj(o.spec);
      let parameters = '<none>';
      if (isObj(spec.parameters)) {
        const p = spec.parameters;
        parameters = str(p.kind) + (typeof p.apiGroup === 'string' ? `.${p.apiGroup}` : '') + `/${str(p.name)}`;
      }
      return [str(spec.controller), parameters, ageOf(o.metadata.creationTimestamp)];
    },
  },
};
