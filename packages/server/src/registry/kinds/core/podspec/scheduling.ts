/**
 * The scheduling and placement parts of a pod spec: affinity, topology spread constraints,
 * DNS config, host aliases, readiness and scheduling gates, resource claims, OS.
 */
import { fieldErr, isDNS1123Subdomain, nameIsDNSLabel, regexError, type FieldError } from '@windlass/machinery';
import { validateLabelName, validateLabelSelector } from '../../../validation/labelselector.js';
import { validateNodeSelector, validateNodeSelectorTerm } from '../../../validation/nodeselector.js';
import { isDNS1123LabelErrors, isDNS1123SubdomainErrors, qualifiedNameErrors, validateIP } from './names.js';
import { arr, duplicate, goStringSlice, invalidRepr, isNotPositiveErrorMsg, isObject, isSet, obj, objs, str, strs, type JsonObject } from './util.js';

export interface SchedulingOptions {
  allowInvalidLabelValueInSelector?: boolean;
  allowInvalidLabelValueInRequiredNodeAffinity?: boolean;
  allowInvalidTopologySpreadConstraintLabelSelector?: boolean;
}

function labelKeys(path: string, keys: string[], selector: unknown): FieldError[] {
  if (keys.length === 0) return [];
  if (!isObject(selector)) return [fieldErr.forbidden(path, 'must not be specified when labelSelector is not set')];
  return keys.flatMap((k, i) => validateLabelName(k, `${path}[${i}]`));
}

function validateMatchLabelKeysAndMismatchLabelKeys(path: string, match: string[], mismatch: string[], selector: unknown): FieldError[] {
  const errs = [...labelKeys(`${path}.matchLabelKeys`, match, selector), ...labelKeys(`${path}.mismatchLabelKeys`, mismatch, selector)];
  if (isObject(selector)) {
    const index = new Map(match.map((k, i) => [k, i]));
    const selectorKeys = new Set(Object.keys(obj(selector.matchLabels)));
    for (const e of objs(selector.matchExpressions)) {
      const key = str(e.key);
      const i = index.get(key);
      if (i !== undefined && selectorKeys.has(key)) errs.push(fieldErr.invalid(`${path}[${i}]`, key, 'exists in both matchLabelKeys and labelSelector'));
      selectorKeys.add(key);
    }
  }
  const mismatchSet = new Set(mismatch);
  match.forEach((k, i) => {
    if (mismatchSet.has(k)) errs.push(fieldErr.invalid(`${path}.matchLabelKeys[${i}]`, k, 'exists in both matchLabelKeys and mismatchLabelKeys'));
  });
  return errs;
}

function podAffinityTerm(term: JsonObject, opts: SchedulingOptions, path: string): FieldError[] {
  const sel = { allowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector };
  const errs = [
    ...validateLabelSelector(term.labelSelector, sel, `${path}.labelSelector`),
    ...validateLabelSelector(term.namespaceSelector, sel, `${path}.namespaceSelector`),
  ];
  for (const ns of strs(term.namespaces)) errs.push(...nameIsDNSLabel(ns, false).map((msg) => fieldErr.invalid(`${path}.namespace`, ns, msg)));
  errs.push(...validateMatchLabelKeysAndMismatchLabelKeys(path, strs(term.matchLabelKeys), strs(term.mismatchLabelKeys), term.labelSelector));
  const topologyKey = str(term.topologyKey);
  if (!topologyKey) errs.push(fieldErr.required(`${path}.topologyKey`, 'can not be empty'));
  errs.push(...validateLabelName(topologyKey, `${path}.topologyKey`));
  return errs;
}

function podAffinity(a: JsonObject, opts: SchedulingOptions, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(a.requiredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => errs.push(...podAffinityTerm(t, opts, `${path}.requiredDuringSchedulingIgnoredDuringExecution[${i}]`)));
  objs(a.preferredDuringSchedulingIgnoredDuringExecution).forEach((w, i) => {
    const p = `${path}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
    const weight = typeof w.weight === 'number' ? w.weight : 0;
    if (weight <= 0 || weight > 100) errs.push(fieldErr.invalid(`${p}.weight`, weight, 'must be in the range 1-100'));
    errs.push(...podAffinityTerm(obj(w.podAffinityTerm), opts, `${p}.podAffinityTerm`));
  });
  return errs;
}

export function validateAffinity(affinity: unknown, opts: SchedulingOptions, path: string): FieldError[] {
  if (!isObject(affinity)) return [];
  const errs: FieldError[] = [];
  if (isObject(affinity.nodeAffinity)) {
    const na = affinity.nodeAffinity;
    const p = `${path}.nodeAffinity`;
    if (isObject(na.requiredDuringSchedulingIgnoredDuringExecution)) {
      errs.push(...validateNodeSelector(na.requiredDuringSchedulingIgnoredDuringExecution, !!opts.allowInvalidLabelValueInRequiredNodeAffinity, `${p}.requiredDuringSchedulingIgnoredDuringExecution`));
    }
    objs(na.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      const tp = `${p}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
      const weight = typeof t.weight === 'number' ? t.weight : 0;
      if (weight <= 0 || weight > 100) errs.push(fieldErr.invalid(`${tp}.weight`, weight, 'must be in the range 1-100'));
      errs.push(...validateNodeSelectorTerm(t.preference, true, `${tp}.preference`));
    });
  }
  if (isObject(affinity.podAffinity)) errs.push(...podAffinity(affinity.podAffinity, opts, `${path}.podAffinity`));
  if (isObject(affinity.podAntiAffinity)) errs.push(...podAffinity(affinity.podAntiAffinity, opts, `${path}.podAntiAffinity`));
  return errs;
}

export function validateTopologySpreadConstraints(constraints: unknown, opts: SchedulingOptions, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = objs(constraints);
  list.forEach((c, i) => {
    const p = `${path}[${i}]`;
    const maxSkew = typeof c.maxSkew === 'number' ? c.maxSkew : 0;
    if (maxSkew <= 0) errs.push(fieldErr.invalid(`${p}.maxSkew`, maxSkew, isNotPositiveErrorMsg));
    const key = str(c.topologyKey);
    if (!key) errs.push(fieldErr.required(`${p}.topologyKey`, 'can not be empty'));
    const action = str(c.whenUnsatisfiable);
    if (action !== 'DoNotSchedule' && action !== 'ScheduleAnyway') errs.push(fieldErr.notSupported(`${p}.whenUnsatisfiable`, action, ['DoNotSchedule', 'ScheduleAnyway']));
    if (list.slice(i + 1).some((o) => str(o.topologyKey) === key && str(o.whenUnsatisfiable) === action)) {
      errs.push(duplicate(`${p}.{topologyKey, whenUnsatisfiable}`, `{${key}, ${action}}`));
    }
    if (typeof c.minDomains === 'number') {
      if (c.minDomains <= 0) errs.push(fieldErr.invalid(`${p}.minDomains`, c.minDomains, isNotPositiveErrorMsg));
      if (action !== 'DoNotSchedule') errs.push(fieldErr.invalid(`${p}.minDomains`, c.minDomains, `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${action}`));
    }
    for (const f of ['nodeAffinityPolicy', 'nodeTaintsPolicy']) {
      if (typeof c[f] === 'string' && c[f] !== 'Honor' && c[f] !== 'Ignore') errs.push(fieldErr.notSupported(`${p}.${f}`, c[f], ['Honor', 'Ignore']));
    }
    const matchLabelKeys = strs(c.matchLabelKeys);
    if (matchLabelKeys.length > 0) {
      const mp = `${p}.matchLabelKeys`;
      const selectorKeys = new Set<string>();
      if (isObject(c.labelSelector)) {
        for (const k of Object.keys(obj(c.labelSelector.matchLabels))) selectorKeys.add(k);
        for (const e of objs(c.labelSelector.matchExpressions)) selectorKeys.add(str(e.key));
      } else {
        errs.push(fieldErr.forbidden(mp, 'must not be specified when labelSelector is not set'));
      }
      matchLabelKeys.forEach((k, j) => {
        errs.push(...validateLabelName(k, `${mp}[${j}]`));
        if (selectorKeys.has(k)) errs.push(fieldErr.invalid(`${mp}[${j}]`, k, 'exists in both matchLabelKeys and labelSelector'));
      });
    }
    if (!opts.allowInvalidTopologySpreadConstraintLabelSelector) errs.push(...validateLabelSelector(c.labelSelector, {}, `${p}.labelSelector`));
  });
  return errs;
}

const subdomainWithUnderscoreRe = /^_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\.(_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?))*$/;

/** IsDNS1123SubdomainWithUnderscore (its message names the plain subdomain regex, as kube's does). */
function subdomainWithUnderscore(value: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(value) > 253) errs.push(fieldErr.invalid(path, value, 'must be no more than 253 characters'));
  if (!subdomainWithUnderscoreRe.test(value)) {
    errs.push(fieldErr.invalid(path, value, regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character", '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*', 'example.com')));
  }
  return errs;
}

export function validateDNSConfig(dnsConfig: unknown, dnsPolicy: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (dnsPolicy === 'None') {
    if (!isObject(dnsConfig)) return [fieldErr.required(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (arr(dnsConfig.nameservers).length === 0) return [fieldErr.required(`${path}.nameservers`, 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (!isObject(dnsConfig)) return errs;
  const nameservers = strs(dnsConfig.nameservers);
  if (nameservers.length > 3) errs.push(invalidRepr(`${path}.nameservers`, goStringSlice(nameservers), 'must not have more than 3 nameservers'));
  nameservers.forEach((ns, i) => errs.push(...validateIP(ns, `${path}.nameservers[${i}]`)));
  const searches = strs(dnsConfig.searches);
  if (searches.length > 32) errs.push(invalidRepr(`${path}.searches`, goStringSlice(searches), 'must not have more than 32 search paths'));
  if (searches.join(' ').length > 2048) errs.push(invalidRepr(`${path}.searches`, goStringSlice(searches), 'must not have more than 2048 characters (including spaces) in the search list'));
  // RelaxedDNSSearchValidation is on by default in 1.35: '.' and underscores are allowed.
  searches.forEach((s, i) => {
    if (s !== '.') errs.push(...subdomainWithUnderscore(s.endsWith('.') ? s.slice(0, -1) : s, `${path}.searches[${i}]`));
  });
  objs(dnsConfig.options).forEach((o, i) => {
    if (!str(o.name)) errs.push(fieldErr.required(`${path}.options[${i}]`, 'must not be empty'));
  });
  return errs;
}

export function validateHostAliases(aliases: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(aliases).forEach((a, i) => {
    errs.push(...validateIP(str(a.ip), `${path}[${i}].ip`));
    strs(a.hostnames).forEach((h, j) => errs.push(...isDNS1123SubdomainErrors(h, `${path}[${i}].hostnames[${j}]`)));
  });
  return errs;
}

export function validateReadinessGates(gates: unknown, path: string): FieldError[] {
  return objs(gates).flatMap((g, i) => qualifiedNameErrors(str(g.conditionType), `${path}[${i}].conditionType`));
}

export function validateSchedulingGates(gates: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  objs(gates).forEach((g, i) => {
    const name = str(g.name);
    errs.push(...qualifiedNameErrors(name, `${path}[${i}]`));
    if (seen.has(name)) errs.push(duplicate(`${path}[${i}]`, name));
    seen.add(name);
  });
  return errs;
}

/** Go's %#v of a core.PodResourceClaim, as its messages print it. */
function claimRepr(c: JsonObject): string {
  const ptr = (v: unknown) => (isSet(v) ? '(*string)(0xc000000000)' : '(*string)(nil)');
  return `core.PodResourceClaim{Name:${JSON.stringify(str(c.name))}, ResourceClaimName:${ptr(c.resourceClaimName)}, ResourceClaimTemplateName:${ptr(c.resourceClaimTemplateName)}}`;
}

export function validatePodResourceClaims(claims: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objs(claims).forEach((c, i) => {
    const p = `${path}[${i}]`;
    const name = str(c.name);
    if (!name) errs.push(fieldErr.required(`${p}.name`));
    else if (names.has(name)) errs.push(duplicate(`${p}.name`, name));
    else { errs.push(...isDNS1123LabelErrors(name, `${p}.name`)); names.add(name); }
    const hasName = isSet(c.resourceClaimName), hasTemplate = isSet(c.resourceClaimTemplateName);
    if (hasName && hasTemplate) errs.push(invalidRepr(p, claimRepr(c), 'at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified'));
    if (!hasName && !hasTemplate) errs.push(invalidRepr(p, claimRepr(c), 'must specify one of: `resourceClaimName`, `resourceClaimTemplateName`'));
    for (const f of ['resourceClaimName', 'resourceClaimTemplateName']) {
      if (!isSet(c[f])) continue;
      const v = str(c[f]);
      for (const msg of isDNS1123Subdomain(v)) errs.push(fieldErr.invalid(`${p}.${f}`, v, msg));
    }
  });
  return errs;
}

export function claimNamesOf(claims: unknown): Set<string> {
  return new Set(objs(claims).map((c) => str(c.name)).filter((n) => n !== ''));
}

export function validateOS(os: unknown, path: string): FieldError[] {
  if (!isObject(os)) return [];
  const name = str(os.name);
  if (!name) return [fieldErr.required(`${path}.name`, 'cannot be empty')];
  return name === 'linux' || name === 'windows' ? [] : [fieldErr.notSupported(path, name, ['linux', 'windows'])];
}

