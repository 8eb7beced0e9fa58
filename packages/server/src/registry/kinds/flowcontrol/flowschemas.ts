/**
 * flowcontrol.apiserver.k8s.io/v1 FlowSchema: the matching-precedence default, kube's
 * validation (subjects, resource and non-resource rules), generation, status and printer.
 */
import { fieldErr, isDNS1123Label, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { nameIsDNSSubdomain } from '../../names.js';
import { arr, isObj, obj, str, type Json } from '../networking/util.js';

export const group = 'flowcontrol.apiserver.k8s.io';
const maxMatchingPrecedence = 10000;
const supportedDistinguisherMethods = ['ByNamespace', 'ByUser'];
const supportedVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const supportedSubjectKinds = ['Group', 'ServiceAccount', 'User'];
const nsErrIntro = "each member of this list must be '*' or a DNS-1123 label; ";

function validateVerbs(verbs: unknown[], path: string): FieldError[] {
  if (verbs.length === 0) return [fieldErr.required(path, 'verbs must contain at least one value')];
  if (verbs.includes('*')) return verbs.length > 1 ? [fieldErr.invalid(path, verbs, "if '*' is present, must not specify other verbs")] : [];
  return verbs.every((v) => supportedVerbs.includes(str(v))) ? [] : [fieldErr.notSupported(path, verbs, supportedVerbs)];
}

/** ValidateNonResourceURLPath. */
function nonResourceURLError(path: string, url: string): FieldError | undefined {
  if (url.length === 0) return fieldErr.invalid(path, url, 'must not be empty');
  if (url === '/') return undefined;
  if (!url.startsWith('/')) return fieldErr.invalid(path, url, 'must start with slash');
  if (url.includes(' ')) return fieldErr.invalid(path, url, 'must not contain white-space');
  if (url.includes('//')) return fieldErr.invalid(path, url, 'must not contain double slash');
  const wildcards = url.split('*').length - 1;
  if (wildcards > 1 || (wildcards === 1 && url.slice(-2) !== '/*')) return fieldErr.invalid(path, url, 'wildcard can only do suffix matching');
  return undefined;
}

function validateResourceRule(rule: Json, path: string): FieldError[] {
  const errs = validateVerbs(arr(rule.verbs), `${path}.verbs`);
  const groups = arr(rule.apiGroups), resources = arr(rule.resources), namespaces = arr(rule.namespaces);
  if (groups.length === 0) errs.push(fieldErr.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  else if (groups.length > 1 && groups.includes('*')) errs.push(fieldErr.invalid(`${path}.apiGroups`, groups, "if '*' is present, must not specify other api groups"));
  if (resources.length === 0) errs.push(fieldErr.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  else if (resources.length > 1 && resources.includes('*')) errs.push(fieldErr.invalid(`${path}.resources`, resources, "if '*' is present, must not specify other resources"));
  if (namespaces.length === 0 && rule.clusterScope !== true) {
    errs.push(fieldErr.required(`${path}.namespaces`, 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (namespaces.includes('*')) {
    if (namespaces.length > 1) errs.push(fieldErr.invalid(`${path}.namespaces`, namespaces, "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => {
      for (const msg of isDNS1123Label(str(ns))) errs.push(fieldErr.invalid(`${path}.namespaces[${i}]`, ns, nsErrIntro + msg));
    });
  }
  return errs;
}

function validateNonResourceRule(rule: Json, path: string): FieldError[] {
  const errs = validateVerbs(arr(rule.verbs), `${path}.verbs`);
  const urls = arr(rule.nonResourceURLs);
  if (urls.length === 0) errs.push(fieldErr.required(`${path}.nonResourceURLs`, 'nonResourceURLs must contain at least one value'));
  else if (urls.includes('*')) {
    if (urls.length > 1) errs.push(fieldErr.invalid(`${path}.nonResourceURLs`, urls, "if '*' is present, must not specify other non-resource URLs"));
  } else {
    urls.forEach((u, i) => {
      const e = nonResourceURLError(`${path}.nonResourceURLs[${i}]`, str(u));
      if (e) errs.push(e);
    });
  }
  return errs;
}

function validateSubject(s: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const forbid = (key: 'user' | 'group' | 'serviceAccount', kind: string) => {
    if (s[key] !== undefined && s[key] !== null) errs.push(fieldErr.forbidden(`${path}.${key}`, `${key} is forbidden when subject kind is not '${kind}'`));
  };
  switch (s.kind) {
    case 'ServiceAccount': {
      if (!isObj(s.serviceAccount)) errs.push(fieldErr.required(`${path}.serviceAccount`, "serviceAccount is required when subject kind is 'ServiceAccount'"));
      else {
        const sa = s.serviceAccount;
        const name = str(sa.name), ns = str(sa.namespace);
        if (name.length === 0) errs.push(fieldErr.required(`${path}.serviceAccount.name`));
        else if (name !== '*') for (const msg of nameIsDNSSubdomain(name, false)) errs.push(fieldErr.invalid(`${path}.serviceAccount.name`, name, msg));
        if (ns.length > 0) for (const msg of isDNS1123Label(ns)) errs.push(fieldErr.invalid(`${path}.serviceAccount.namespace`, ns, msg));
        else errs.push(fieldErr.required(`${path}.serviceAccount.namespace`, 'must specify namespace for service account'));
      }
      forbid('user', 'User');
      forbid('group', 'Group');
      break;
    }
    case 'User':
      if (!isObj(s.user)) errs.push(fieldErr.required(`${path}.user`, "user is required when subject kind is 'User'"));
      else if (str(s.user.name).length === 0) errs.push(fieldErr.required(`${path}.user.name`));
      forbid('serviceAccount', 'ServiceAccount');
      forbid('group', 'Group');
      break;
    case 'Group':
      if (!isObj(s.group)) errs.push(fieldErr.required(`${path}.group`, "group is required when subject kind is 'Group'"));
      else if (str(s.group.name).length === 0) errs.push(fieldErr.required(`${path}.group.name`));
      forbid('serviceAccount', 'ServiceAccount');
      forbid('user', 'User');
      break;
    default:
      errs.push(fieldErr.notSupported(`${path}.kind`, str(s.kind), supportedSubjectKinds));
  }
  return errs;
}

function validateSpec(o: KubeObject): FieldError[] {
  const spec = obj(o.spec);
  const errs: FieldError[] = [];
  const precedence = typeof spec.matchingPrecedence === 'number' ? spec.matchingPrecedence : 0;
  if (precedence <= 0) errs.push(fieldErr.invalid('spec.matchingPrecedence', precedence, 'must be a positive value'));
  if (precedence > maxMatchingPrecedence) errs.push(fieldErr.invalid('spec.matchingPrecedence', precedence, `must not be greater than ${maxMatchingPrecedence}`));
  if (precedence === 1 && o.metadata.name !== 'exempt') errs.push(fieldErr.invalid('spec.matchingPrecedence', precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  if (isObj(spec.distinguisherMethod) && !supportedDistinguisherMethods.includes(str(spec.distinguisherMethod.type))) {
    // kube quotes the whole (internal, untagged) method struct.
    errs.push(fieldErr.notSupported('spec.distinguisherMethod.type', { Type: str(spec.distinguisherMethod.type) }, supportedDistinguisherMethods));
  }
  const pl = str(obj(spec.priorityLevelConfiguration).name);
  if (pl.length > 0) for (const msg of nameIsDNSSubdomain(pl, false)) errs.push(fieldErr.invalid('spec.priorityLevelConfiguration.name', pl, msg));
  else errs.push(fieldErr.required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  arr(spec.rules).forEach((raw, i) => {
    const rule = obj(raw);
    const path = `spec.rules[${i}]`;
    const subjects = arr(rule.subjects);
    if (subjects.length > 0) subjects.forEach((s, j) => errs.push(...validateSubject(obj(s), `${path}.subjects[${j}]`)));
    else errs.push(fieldErr.required(`${path}.subjects`, 'subjects must contain at least one value'));
    const resourceRules = arr(rule.resourceRules), nonResourceRules = arr(rule.nonResourceRules);
    if (resourceRules.length === 0 && nonResourceRules.length === 0) errs.push(fieldErr.required(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
    resourceRules.forEach((r, j) => errs.push(...validateResourceRule(obj(r), `${path}.resourceRules[${j}]`)));
    nonResourceRules.forEach((r, j) => errs.push(...validateNonResourceRule(obj(r), `${path}.nonResourceRules[${j}]`)));
  });
  return errs;
}

/** Conditions of a flow schema or priority level: each type once and non-empty. */
export function validateTypedConditions(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  arr(obj(o.status).conditions).forEach((raw, i) => {
    const type = str(obj(raw).type);
    if (seen.has(type)) errs.push({ type: 'FieldValueDuplicate', field: `status.conditions[${i}].type`, detail: `Duplicate value: ${JSON.stringify(type)}` });
    seen.add(type);
    if (type.length === 0) errs.push(fieldErr.required(`status.conditions[${i}].type`, 'must not be empty'));
  });
  return errs;
}

export const flowSchemas: KindDefinition = {
  group, version: 'v1', resource: 'flowschemas',
  generation: true,
  strategy: {
    defaults(o) {
      if (isObj(o.spec) && !o.spec.matchingPrecedence) o.spec.matchingPrecedence = 1000;
    },
    validate: validateSpec,
    validateUpdate: (o) => validateSpec(o),
  },
  subresourceStrategies: { status: { validateUpdate: (o) => validateTypedConditions(o) } },
  table: {
    columns: [
      column('PriorityLevel', 'string', '`name` is the name of the priority level configuration being referenced Required.'),
      column('MatchingPrecedence', 'string', '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.'),
      column('DistinguisherMethod', 'string', '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.'),
      ageColumn,
      column('MissingPL', 'string', 'references a broken or non-existent PriorityLevelConfiguration'),
    ],
    cells: (o) => {
      const spec = obj(o.spec);
      const dangling = arr(obj(o.status).conditions).map(obj).find((c) => c.type === 'Dangling');
      return [
        str(obj(spec.priorityLevelConfiguration).name),
        typeof spec.matchingPrecedence === 'number' ? spec.matchingPrecedence : 0,
        isObj(spec.distinguisherMethod) ? str(spec.distinguisherMethod.type) : '<none>',
        ageOf(o.metadata.creationTimestamp),
        dangling ? str(dangling.status) : '?',
      ];
    },
    sortRows: sortFlowSchemas,
  },
};

const precedence = (fs: KubeObject): number => {
  const p = obj(fs.spec).matchingPrecedence;
  return typeof p === 'number' ? p : 0;
};

/**
 * FlowSchemaSequence's order, which kube's list printer sorts by: the order the apiserver
 * matches requests in (lowest matchingPrecedence first), ties broken by name.
 */
export function sortFlowSchemas(items: KubeObject[]): KubeObject[] {
  return [...items].sort((a, b) => precedence(a) - precedence(b) || compareNames(a.metadata.name ?? '', b.metadata.name ?? ''));
}

const compareNames = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
