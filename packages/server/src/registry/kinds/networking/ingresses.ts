/**
 * networking.k8s.io/v1 Ingress: kube's ValidateIngressCreate/Update and status validation
 * (pkg/apis/networking/validation), the generation its strategy tracks, and its printer.
 */
import { fieldErr, isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { arr, isObj, obj, pathSegmentErrors, str, wildcardSubdomainErrors, type Json } from './util.js';
import { isValidIPForLegacyField, parseIP, portNameErrors, portNumErrors } from './ip.js';
import { ingressWarningsOnCreate } from './warnings.js';

const annotationIngressClass = 'kubernetes.io/ingress.class';
const supportedPathTypes = ['Exact', 'ImplementationSpecific', 'Prefix'];
const invalidPathSequences = ['//', '/./', '/../', '%2f', '%2F'];
const invalidPathSuffixes = ['/..', '/.'];

interface IngressOptions {
  allowInvalidSecretName: boolean;
  allowInvalidWildcardHostRule: boolean;
  allowRelaxedServiceNameValidation: boolean;
}

const strictOptions: IngressOptions = { allowInvalidSecretName: false, allowInvalidWildcardHostRule: false, allowRelaxedServiceNameValidation: false };

/** validateIngressTypedLocalObjectReference (a resource backend). */
function validateTypedLocalObjectReference(ref: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof ref.apiGroup === 'string') {
    for (const msg of isDNS1123Subdomain(ref.apiGroup)) errs.push(fieldErr.invalid(`${path}.apiGroup`, ref.apiGroup, msg));
  }
  for (const key of ['kind', 'name'] as const) {
    const v = str(ref[key]);
    if (v === '') errs.push(fieldErr.required(`${path}.${key}`));
    else for (const msg of pathSegmentErrors(v)) errs.push(fieldErr.invalid(`${path}.${key}`, v, msg));
  }
  return errs;
}

function validateBackend(backend: Json, path: string, opts: IngressOptions): FieldError[] {
  const errs: FieldError[] = [];
  const hasResource = isObj(backend.resource), hasService = isObj(backend.service);
  if (hasResource && hasService) return [fieldErr.invalid(path, '', 'cannot set both resource and service backends')];
  if (hasResource) return validateTypedLocalObjectReference(backend.resource as Json, `${path}.resource`);
  if (!hasService) return [fieldErr.invalid(path, '', 'resource or service backend is required')];
  const svc = backend.service as Json;
  const name = str(svc.name);
  if (name === '') errs.push(fieldErr.required(`${path}.service.name`));
  else {
    const check = opts.allowRelaxedServiceNameValidation ? isDNS1123Label : isDNS1035Label;
    for (const msg of check(name)) errs.push(fieldErr.invalid(`${path}.service.name`, name, msg));
  }
  const port = obj(svc.port);
  const portName = str(port.name);
  const portNumber = typeof port.number === 'number' ? port.number : 0;
  if (portName && portNumber) errs.push(fieldErr.invalid(path, '', 'cannot set both port name & port number'));
  else if (portName) for (const msg of portNameErrors(portName)) errs.push(fieldErr.invalid(`${path}.service.port.name`, portName, msg));
  else if (portNumber) for (const msg of portNumErrors(portNumber)) errs.push(fieldErr.invalid(`${path}.service.port.number`, portNumber, msg));
  else errs.push(fieldErr.required(path, 'port name or number is required'));
  return errs;
}

function validateHTTPPath(p: Json, path: string, opts: IngressOptions): FieldError[] {
  if (typeof p.pathType !== 'string') return [fieldErr.required(`${path}.pathType`, 'pathType must be specified')];
  const errs: FieldError[] = [];
  const value = str(p.path);
  switch (p.pathType) {
    case 'Exact':
    case 'Prefix':
      if (!value.startsWith('/')) errs.push(fieldErr.invalid(`${path}.path`, value, 'must be an absolute path'));
      if (value.length > 0) {
        for (const seq of invalidPathSequences) if (value.includes(seq)) errs.push(fieldErr.invalid(`${path}.path`, value, `must not contain '${seq}'`));
        for (const suffix of invalidPathSuffixes) if (value.endsWith(suffix)) errs.push(fieldErr.invalid(`${path}.path`, value, `cannot end with '${suffix}'`));
      }
      break;
    case 'ImplementationSpecific':
      if (value.length > 0 && !value.startsWith('/')) errs.push(fieldErr.invalid(`${path}.path`, value, 'must be an absolute path'));
      break;
    default:
      errs.push(fieldErr.notSupported(`${path}.pathType`, p.pathType, supportedPathTypes));
  }
  errs.push(...validateBackend(obj(p.backend), `${path}.backend`, opts));
  return errs;
}

function validateRuleValue(rule: Json, path: string, opts: IngressOptions): FieldError[] {
  if (!isObj(rule.http)) return [];
  const paths = arr(rule.http.paths);
  const errs: FieldError[] = [];
  if (paths.length === 0) errs.push(fieldErr.required(`${path}.http.paths`));
  paths.forEach((p, i) => errs.push(...validateHTTPPath(obj(p), `${path}.http.paths[${i}]`, opts)));
  return errs;
}

function validateRules(rules: unknown[], path: string, opts: IngressOptions): FieldError[] {
  const errs: FieldError[] = [];
  rules.forEach((raw, i) => {
    const rule = obj(raw);
    const host = str(rule.host);
    let wildcard = false;
    if (host.length > 0) {
      if (parseIP(host)) errs.push(fieldErr.invalid(`${path}[${i}].host`, host, 'must be a DNS name, not an IP address'));
      if (host.includes('*')) {
        for (const msg of wildcardSubdomainErrors(host)) errs.push(fieldErr.invalid(`${path}[${i}].host`, host, msg));
        wildcard = true;
      } else {
        for (const msg of isDNS1123Subdomain(host)) errs.push(fieldErr.invalid(`${path}[${i}].host`, host, msg));
      }
    }
    if (!wildcard || !opts.allowInvalidWildcardHostRule) errs.push(...validateRuleValue(rule, `${path}[${i}]`, opts));
  });
  return errs;
}

function validateTLS(tls: unknown[], path: string, opts: IngressOptions): FieldError[] {
  const errs: FieldError[] = [];
  tls.forEach((raw, t) => {
    const entry = obj(raw);
    arr(entry.hosts).forEach((h, i) => {
      const host = str(h);
      const msgs = host.includes('*') ? wildcardSubdomainErrors(host) : isDNS1123Subdomain(host);
      for (const msg of msgs) errs.push(fieldErr.invalid(`${path}[${t}].hosts[${i}]`, host, msg));
    });
    if (!opts.allowInvalidSecretName) {
      const secret = str(entry.secretName);
      if (secret) for (const msg of isDNS1123Subdomain(secret)) errs.push(fieldErr.invalid(`${path}[${t}].secretName`, secret, msg));
    }
  });
  return errs;
}

function validateSpec(spec: Json, path: string, opts: IngressOptions): FieldError[] {
  const errs: FieldError[] = [];
  const rules = arr(spec.rules);
  if (rules.length === 0 && !isObj(spec.defaultBackend)) {
    // kube quotes the (nil) rules list, which JSON renders as null.
    errs.push(fieldErr.invalid(path, Array.isArray(spec.rules) ? spec.rules : null, 'either `defaultBackend` or `rules` must be specified'));
  }
  if (isObj(spec.defaultBackend)) errs.push(...validateBackend(spec.defaultBackend, `${path}.defaultBackend`, opts));
  if (rules.length > 0) errs.push(...validateRules(rules, `${path}.rules`, opts));
  const tls = arr(spec.tls);
  if (tls.length > 0) errs.push(...validateTLS(tls, `${path}.tls`, opts));
  if (typeof spec.ingressClassName === 'string') {
    for (const msg of isDNS1123Subdomain(spec.ingressClassName)) errs.push(fieldErr.invalid(`${path}.ingressClassName`, spec.ingressClassName, msg));
  }
  return errs;
}

/** Tolerances for invalid values an update finds already stored (kube's allowInvalid* helpers). */
function optionsFor(old: KubeObject): IngressOptions {
  const spec = obj(old.spec);
  const allowInvalidSecretName = arr(spec.tls).some((t) => {
    const s = str(obj(t).secretName);
    return s !== '' && isDNS1123Subdomain(s).length > 0;
  });
  const allowInvalidWildcardHostRule = arr(spec.rules).some((r) => str(obj(r).host).includes('*') && validateRuleValue(obj(r), '', strictOptions).length > 0);
  const relaxed = (name: string) => isDNS1123Label(name).length === 0 && isDNS1035Label(name).length > 0;
  const backendNames = [obj(obj(spec.defaultBackend).service).name, ...arr(spec.rules).flatMap((r) => arr(obj(obj(r).http).paths).map((p) => obj(obj(obj(p).backend).service).name))];
  const allowRelaxedServiceNameValidation = backendNames.some((n) => typeof n === 'string' && relaxed(n));
  return { allowInvalidSecretName, allowInvalidWildcardHostRule, allowRelaxedServiceNameValidation };
}

export function validateIngressCreate(ingress: KubeObject): FieldError[] {
  const errs = validateSpec(obj(ingress.spec), 'spec', strictOptions);
  const annotation = ingress.metadata.annotations?.[annotationIngressClass];
  const className = obj(ingress.spec).ingressClassName;
  if (annotation !== undefined && typeof className === 'string' && annotation !== className) {
    errs.push(fieldErr.invalid(`annotations.${annotationIngressClass}`, annotation, 'must match `ingressClassName` when both are specified'));
  }
  return errs;
}

/** ValidateIngressLoadBalancerStatus. */
export function validateIngressLoadBalancerStatus(status: Json, oldStatus: Json, path: string): FieldError[] {
  const existing = arr(oldStatus.ingress).map((i) => str(obj(i).ip)).filter((ip) => ip !== '');
  const errs: FieldError[] = [];
  arr(status.ingress).forEach((raw, i) => {
    const ing = obj(raw);
    const ip = str(ing.ip), hostname = str(ing.hostname);
    if (ip) errs.push(...isValidIPForLegacyField(`${path}.ingress[${i}].ip`, ip, existing));
    if (hostname) {
      for (const msg of isDNS1123Subdomain(hostname)) errs.push(fieldErr.invalid(`${path}.ingress[${i}].hostname`, hostname, msg));
      if (parseIP(hostname)) errs.push(fieldErr.invalid(`${path}.ingress[${i}].hostname`, hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}

/** The printer's Address cell: the load balancer's IPs or hostnames, sorted, clipped to 16 bytes. */
export function loadBalancerAddress(lb: Json): string {
  const set = new Set<string>();
  for (const raw of arr(lb.ingress)) {
    const i = obj(raw);
    if (str(i.ip)) set.add(str(i.ip));
    else if (str(i.hostname)) set.add(str(i.hostname));
  }
  const r = [...set].sort().join(',');
  return r.length > 16 ? `${r.slice(0, 13)}...` : r;
}

function formatHosts(rules: unknown[]): string {
  const list: string[] = [];
  let more = false;
  for (const r of rules) {
    if (list.length === 3) more = true;
    const host = str(obj(r).host);
    if (!more && host) list.push(host);
  }
  if (list.length === 0) return '*';
  return more ? `${list.join(',')} + ${rules.length - 3} more...` : list.join(',');
}

export const ingresses: KindDefinition = {
  group: 'networking.k8s.io', version: 'v1', resource: 'ingresses', internalGroup: 'extensions',
  generation: true,
  strategy: {
    warningsOnCreate: ingressWarningsOnCreate,
    validate: validateIngressCreate,
    validateUpdate: (obj_, old) => validateSpec(obj(obj_.spec), 'spec', optionsFor(old)),
  },
  subresourceStrategies: {
    status: {
      validateUpdate: (o, old) => validateIngressLoadBalancerStatus(obj(obj(o.status).loadBalancer), obj(obj(old.status).loadBalancer), 'status.loadBalancer'),
    },
  },
  table: {
    columns: [
      column('Class', 'string', 'The name of the IngressClass resource that should be used for additional configuration'),
      column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
      column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
      column('Ports', 'string', 'Ports of TLS configurations that open'),
      ageColumn,
    ],
    cells: (o) => {
      const spec = obj(o.spec);
      return [
        typeof spec.ingressClassName === 'string' ? spec.ingressClassName : '<none>',
        formatHosts(arr(spec.rules)),
        loadBalancerAddress(obj(obj(o.status).loadBalancer)),
        arr(spec.tls).length ? '80, 443' : '80',
        ageOf(o.metadata.creationTimestamp),
      ];
    },
  },
};
