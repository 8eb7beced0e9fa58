/**
 * Validation shared by the admissionregistration.k8s.io kinds, ported from kube's
 * pkg/apis/admissionregistration/validation and k8s.io/apiserver's webhook URL and service
 * checks: rules, selectors, client configs, match resources, param refs and conditions.
 * Match conditions are compiled as kube compiles them (../../../cel/admissioncompile.ts).
 */
import { compileAdmissionExpression } from '../../../cel/admissioncompile.js';
import { fieldErr, isDNS1035Label, isDNS1123Subdomain, isQualifiedName, type FieldError } from '@windlass/machinery';
import { validateLabelSelector, type LabelSelectorValidationOptions } from '../../validation/labelselector.js';
import { arr, isObj, obj, pathSegmentErrors, str, tooMany, type Json } from '../networking/util.js';
import { portNumErrors } from '../networking/ip.js';

export { arr, isObj, obj, str, type Json };

const hasWildcard = (list: unknown[]) => list.includes('*');

/** utilvalidation.IsFullyQualifiedName: a DNS subdomain of at least three labels. */
export function validateFullyQualifiedName(path: string, name: string): FieldError[] {
  if (name.length === 0) return [fieldErr.required(path)];
  const errs = isDNS1123Subdomain(name);
  if (errs.length > 0) return [fieldErr.invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3) return [fieldErr.invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function validateResources(resources: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(fieldErr.required(path));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false, singleWildcard = false, withoutSub = false;
  resources.forEach((raw, i) => {
    const rs = str(raw);
    if (rs === '') {
      errs.push(fieldErr.required(`${path}[${i}]`));
      return;
    }
    if (rs === '*/*') doubleWildcard = true;
    if (rs === '*') singleWildcard = true;
    const slash = rs.indexOf('/');
    if (slash < 0) {
      withoutSub = rs !== '*';
      return;
    }
    const res = rs.slice(0, slash), sub = rs.slice(slash + 1);
    if (withWildcardSub.has(res)) errs.push(fieldErr.invalid(`${path}[${i}]`, rs, `if '${res}/*' is present, must not specify ${rs}`));
    if (subWithWildcardRes.has(sub)) errs.push(fieldErr.invalid(`${path}[${i}]`, rs, `if '*/${sub}' is present, must not specify ${rs}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(fieldErr.invalid(path, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub) errs.push(fieldErr.invalid(path, resources, "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

const validScopes = ['*', 'Cluster', 'Namespaced'];
const supportedOperations = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];

function validateRule(rule: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const groups = arr(rule.apiGroups), versions = arr(rule.apiVersions);
  if (groups.length === 0) errs.push(fieldErr.required(`${path}.apiGroups`));
  if (groups.length > 1 && hasWildcard(groups)) errs.push(fieldErr.invalid(`${path}.apiGroups`, groups, "if '*' is present, must not specify other API groups"));
  if (versions.length === 0) errs.push(fieldErr.required(`${path}.apiVersions`));
  if (versions.length > 1 && hasWildcard(versions)) errs.push(fieldErr.invalid(`${path}.apiVersions`, versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(fieldErr.required(`${path}.apiVersions[${i}]`));
  });
  errs.push(...validateResources(arr(rule.resources), `${path}.resources`));
  if (typeof rule.scope === 'string' && !validScopes.includes(rule.scope)) errs.push(fieldErr.notSupported(`${path}.scope`, rule.scope, validScopes));
  return errs;
}

export function validateRuleWithOperations(rule: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = arr(rule.operations);
  if (ops.length === 0) errs.push(fieldErr.required(`${path}.operations`));
  if (ops.length > 1 && hasWildcard(ops)) errs.push(fieldErr.invalid(`${path}.operations`, ops, "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => {
    if (!supportedOperations.includes(str(op))) errs.push(fieldErr.notSupported(`${path}.operations[${i}]`, op, supportedOperations));
  });
  return [...errs, ...validateRule(rule, path)];
}

interface GoURL {
  scheme: string;
  user?: string;
  host: string;
  rawQuery: string;
  fragment: string;
}

/** Enough of Go's url.Parse for the webhook checks: scheme, userinfo, host, query, fragment. */
function parseGoURL(raw: string): GoURL {
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  let scheme = '';
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (m) {
    scheme = m[1].toLowerCase();
    rest = rest.slice(m[0].length);
  }
  let rawQuery = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let host = '';
  let user: string | undefined;
  if (rest.startsWith('//')) {
    const authority = rest.slice(2).split('/')[0];
    const at = authority.lastIndexOf('@');
    if (at >= 0) user = authority.slice(0, at);
    host = at >= 0 ? authority.slice(at + 1) : authority;
  }
  return { scheme, user, host, rawQuery, fragment };
}

/** webhook.ValidateWebhookURL with forceHttps. */
export function validateWebhookURL(path: string, url: string): FieldError[] {
  const form = '; desired format: https://host[/path]';
  const u = parseGoURL(url);
  const errs: FieldError[] = [];
  if (u.scheme !== 'https') errs.push(fieldErr.invalid(path, u.scheme, `'https' is the only allowed URL scheme${form}`));
  if (u.host.length === 0) errs.push(fieldErr.invalid(path, u.host, `host must be provided${form}`));
  if (u.user !== undefined) errs.push(fieldErr.invalid(path, u.user, 'user information is not permitted in the URL'));
  if (u.fragment.length !== 0) errs.push(fieldErr.invalid(path, u.fragment, 'fragments are not permitted in the URL'));
  if (u.rawQuery.length !== 0) errs.push(fieldErr.invalid(path, u.rawQuery, 'query parameters are not permitted in the URL'));
  return errs;
}

/** webhook.ValidateWebhookService. */
export function validateWebhookService(path: string, svc: Json): FieldError[] {
  const errs: FieldError[] = [];
  if (str(svc.name) === '') errs.push(fieldErr.required(`${path}.name`, 'service name is required'));
  if (str(svc.namespace) === '') errs.push(fieldErr.required(`${path}.namespace`, 'service namespace is required'));
  const port = typeof svc.port === 'number' ? svc.port : 443;
  const portErrs = portNumErrors(port);
  if (portErrs.length) errs.push(fieldErr.invalid(`${path}.port`, port, `port is not valid: ${portErrs.join(', ')}`));
  if (typeof svc.path !== 'string') return errs;
  const urlPath = svc.path;
  if (urlPath === '/' || urlPath.length === 0) return errs;
  if (urlPath === '//') return [...errs, fieldErr.invalid(`${path}.path`, urlPath, 'segment[0] may not be empty')];
  if (!urlPath.startsWith('/')) errs.push(fieldErr.invalid(`${path}.path`, urlPath, "must start with a '/'"));
  let toCheck = urlPath.slice(1);
  if (toCheck.endsWith('/')) toCheck = toCheck.slice(0, -1);
  toCheck.split('/').forEach((step, i) => {
    if (step.length === 0) {
      errs.push(fieldErr.invalid(`${path}.path`, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of isDNS1123Subdomain(step)) errs.push(fieldErr.invalid(`${path}.path`, urlPath, `segment[${i}]: ${failure}`));
  });
  return errs;
}

export function validateClientConfig(cc: Json, path: string): FieldError[] {
  const hasURL = typeof cc.url === 'string', hasService = isObj(cc.service);
  if (hasURL === hasService) return [fieldErr.required(path, 'exactly one of url or service is required')];
  if (hasURL) return validateWebhookURL(`${path}.url`, cc.url as string);
  return validateWebhookService(`${path}.service`, cc.service as Json);
}

/** validateMatchConditions: names, and expressions compiled as bools (`params` only in a policy with a paramKind). */
export function validateMatchConditions(conditions: unknown[], path: string, hasParams: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (conditions.length > 64) errs.push(tooMany(path, conditions.length, 64));
  const names = new Set<string>();
  conditions.forEach((raw, i) => {
    const c = obj(raw);
    const expression = str(c.expression).trim();
    if (expression.length === 0) errs.push(fieldErr.required(`${path}[${i}].expression`));
    else {
      const { error } = compileAdmissionExpression(expression, { hasParams, hasAuthorizer: true }, 'bool');
      if (error) errs.push(fieldErr.invalid(`${path}[${i}].expression`, expression, error));
    }
    const name = str(c.name);
    if (name.length === 0) errs.push(fieldErr.required(`${path}[${i}].name`));
    else for (const msg of isQualifiedName(name)) errs.push(fieldErr.invalid(`${path}[${i}].name`, name, msg));
    if (name.length > 0) {
      if (names.has(name)) errs.push({ type: 'FieldValueDuplicate', field: `${path}[${i}].name`, detail: `Duplicate value: ${JSON.stringify(name)}` });
      else names.add(name);
    }
  });
  return errs;
}

export function validateSelector(sel: unknown, opts: LabelSelectorValidationOptions, path: string): FieldError[] {
  return isObj(sel) ? validateLabelSelector(sel, opts, path) : [];
}

export const supportedFailurePolicies = ['Fail', 'Ignore'];
export const supportedMatchPolicies = ['Equivalent', 'Exact'];

function validateNamedRuleWithOperations(rule: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  arr(rule.resourceNames).forEach((raw, i) => {
    const name = str(raw);
    for (const msg of pathSegmentErrors(name)) errs.push(fieldErr.invalid(`${path}.resourceNames[${i}]`, name, msg));
    if (seen.has(name)) errs.push({ type: 'FieldValueDuplicate', field: `${path}.resourceNames[${i}]`, detail: `Duplicate value: ${JSON.stringify(name)}` });
    else seen.add(name);
  });
  return [...errs, ...validateRuleWithOperations(rule, path)];
}

/** validateMatchResources (policies and bindings): every selector strictly. */
export function validateMatchResources(mc: unknown, path: string): FieldError[] {
  if (!isObj(mc)) return [];
  const errs: FieldError[] = [];
  if (typeof mc.matchPolicy !== 'string') errs.push(fieldErr.required(`${path}.matchPolicy`));
  else if (!supportedMatchPolicies.includes(mc.matchPolicy)) errs.push(fieldErr.notSupported(`${path}.matchPolicy`, mc.matchPolicy, supportedMatchPolicies));
  for (const key of ['namespaceSelector', 'objectSelector'] as const) {
    if (!isObj(mc[key])) errs.push(fieldErr.required(`${path}.${key}`));
    else errs.push(...validateLabelSelector(mc[key], {}, `${path}.${key}`));
  }
  arr(mc.resourceRules).forEach((r, i) => errs.push(...validateNamedRuleWithOperations(obj(r), `${path}.resourceRules[${i}]`)));
  arr(mc.excludeResourceRules).forEach((r, i) => errs.push(...validateNamedRuleWithOperations(obj(r), `${path}.excludeResourceRules[${i}]`)));
  return errs;
}

/** validateParamKind: a group version and a kind, as APIService validation reads them. */
export function validateParamKind(pk: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = str(pk.apiVersion);
  if (apiVersion.length === 0) errs.push(fieldErr.required(`${path}.apiVersion`));
  else {
    const slashes = apiVersion.split('/').length - 1;
    if (slashes > 1) errs.push(fieldErr.invalid(`${path}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    else {
      const [group, version] = apiVersion === '/' ? ['', ''] : slashes === 0 ? ['', apiVersion] : apiVersion.split('/');
      if (group.length > 0) {
        const e = isDNS1123Subdomain(group);
        if (e.length) errs.push(fieldErr.invalid(`${path}.apiVersion`, group, e.join(',')));
      }
      if (version.length === 0) errs.push(fieldErr.invalid(`${path}.apiVersion`, apiVersion, 'version must be specified'));
      else {
        const e = isDNS1035Label(version);
        if (e.length) errs.push(fieldErr.invalid(`${path}.apiVersion`, version, e.join(',')));
      }
    }
  }
  const kind = str(pk.kind);
  if (kind.length === 0) errs.push(fieldErr.required(`${path}.kind`));
  else {
    const e = isDNS1035Label(kind.toLowerCase());
    if (e.length) errs.push(fieldErr.invalid(`${path}.kind`, kind, `may have mixed case, but should otherwise match: ${e.join(',')}`));
  }
  return errs;
}

const conditionReasonFmt = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const conditionReasonRe = new RegExp(`^${conditionReasonFmt}$`);

/** metav1validation.ValidateConditions (metav1.Condition lists in statuses). */
export function validateMetaConditions(conditions: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  conditions.forEach((raw, i) => {
    const c = obj(raw);
    const p = `${path}[${i}]`;
    const type = str(c.type);
    if (seen.has(type)) errs.push({ type: 'FieldValueDuplicate', field: `${p}.type`, detail: `Duplicate value: ${JSON.stringify(type)}` });
    else seen.add(type);
    for (const msg of isQualifiedName(type)) errs.push(fieldErr.invalid(`${p}.type`, type, msg));
    if (!['False', 'True', 'Unknown'].includes(str(c.status))) errs.push(fieldErr.notSupported(`${p}.status`, str(c.status), ['False', 'True', 'Unknown']));
    if (typeof c.observedGeneration === 'number' && c.observedGeneration < 0) errs.push(fieldErr.invalid(`${p}.observedGeneration`, c.observedGeneration, 'must be greater than or equal to zero'));
    if (!c.lastTransitionTime) errs.push(fieldErr.required(`${p}.lastTransitionTime`));
    const reason = str(c.reason);
    if (reason.length === 0) errs.push(fieldErr.required(`${p}.reason`));
    else {
      if (!conditionReasonRe.test(reason)) {
        errs.push(fieldErr.invalid(`${p}.reason`, reason, `a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '${conditionReasonFmt}')`));
      }
      if (reason.length > 1024) errs.push(fieldErr.tooLong(`${p}.reason`, 1024));
    }
    if (str(c.message).length > 32 * 1024) errs.push(fieldErr.tooLong(`${p}.message`, 32 * 1024));
  });
  return errs;
}
