/**
 * MutatingWebhookConfiguration and ValidatingWebhookConfiguration (admissionregistration.k8s.io/v1):
 * kube's v1 defaults, validation (stricter on create; on update only as strict as the stored
 * object already was), the generation bumped when the webhooks change, and the printers.
 */
import { fieldErr, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import {
  arr, isObj, obj, str, supportedFailurePolicies, supportedMatchPolicies, validateClientConfig, validateFullyQualifiedName,
  validateMatchConditions, validateRuleWithOperations, validateSelector, type Json,
} from './validation.js';
import { isDNS1035Label } from '@windlass/machinery';

type WebhookKind = 'mutating' | 'validating';

/** SetDefaults_MutatingWebhook / SetDefaults_ValidatingWebhook and what they nest (rules, service references). */
export function defaultWebhooks(o: KubeObject, kind: WebhookKind): void {
  for (const raw of arr(o.webhooks)) {
    if (!isObj(raw)) continue;
    const hook = raw;
    hook.failurePolicy ??= 'Fail';
    hook.matchPolicy ??= 'Equivalent';
    hook.namespaceSelector ??= {};
    hook.objectSelector ??= {};
    hook.timeoutSeconds ??= 10;
    if (kind === 'mutating') hook.reinvocationPolicy ??= 'Never';
    for (const rule of arr(hook.rules)) if (isObj(rule)) rule.scope ??= '*';
    const svc = obj(hook.clientConfig).service;
    if (isObj(svc)) svc.port ??= 443;
  }
}

interface WebhookOptions {
  requireNoSideEffects: boolean;
  requireRecognizedAdmissionReviewVersion: boolean;
  requireUniqueWebhookNames: boolean;
  allowInvalidLabelValueInSelector: boolean;
  ignoreMatchConditions: boolean;
}

const createOptions: WebhookOptions = {
  requireNoSideEffects: true, requireRecognizedAdmissionReviewVersion: true, requireUniqueWebhookNames: true,
  allowInvalidLabelValueInSelector: false, ignoreMatchConditions: false,
};

const acceptedReviewVersions = ['v1', 'v1beta1'];
const noSideEffects = ['None', 'NoneOnDryRun'];
const allSideEffects = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const reinvocationPolicies = ['IfNeeded', 'Never'];

function validateAdmissionReviewVersions(versions: unknown[], requireRecognized: boolean, path: string): FieldError[] {
  if (versions.length < 1) return [fieldErr.required(path, `must specify one of ${acceptedReviewVersions.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((raw, i) => {
    const v = str(raw);
    if (seen.has(v)) {
      errs.push(fieldErr.invalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(fieldErr.invalid(`${path}[${i}]`, v, msg));
    if (acceptedReviewVersions.includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted) errs.push(fieldErr.invalid(path, versions, `must include at least one of ${acceptedReviewVersions.join(', ')}`));
  return errs;
}

function validateWebhook(hook: Json, kind: WebhookKind, opts: WebhookOptions, path: string): FieldError[] {
  const errs = validateFullyQualifiedName(`${path}.name`, str(hook.name));
  arr(hook.rules).forEach((r, i) => errs.push(...validateRuleWithOperations(obj(r), `${path}.rules[${i}]`)));
  if (typeof hook.failurePolicy === 'string' && !supportedFailurePolicies.includes(hook.failurePolicy)) {
    errs.push(fieldErr.notSupported(`${path}.failurePolicy`, hook.failurePolicy, supportedFailurePolicies));
  }
  if (typeof hook.matchPolicy === 'string' && !supportedMatchPolicies.includes(hook.matchPolicy)) {
    errs.push(fieldErr.notSupported(`${path}.matchPolicy`, hook.matchPolicy, supportedMatchPolicies));
  }
  const allowed = opts.requireNoSideEffects ? noSideEffects : allSideEffects;
  if (typeof hook.sideEffects !== 'string') errs.push(fieldErr.required(`${path}.sideEffects`, `must specify one of ${allowed.join(', ')}`));
  else if (!allowed.includes(hook.sideEffects)) errs.push(fieldErr.notSupported(`${path}.sideEffects`, hook.sideEffects, allowed));
  if (typeof hook.timeoutSeconds === 'number' && (hook.timeoutSeconds > 30 || hook.timeoutSeconds < 1)) {
    errs.push(fieldErr.invalid(`${path}.timeoutSeconds`, hook.timeoutSeconds, 'the timeout value must be between 1 and 30 seconds'));
  }
  const selectorOpts = { allowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector };
  errs.push(...validateSelector(hook.namespaceSelector, selectorOpts, `${path}.namespaceSelector`));
  errs.push(...validateSelector(hook.objectSelector, selectorOpts, `${path}.objectSelector`));
  if (kind === 'mutating' && typeof hook.reinvocationPolicy === 'string' && !reinvocationPolicies.includes(hook.reinvocationPolicy)) {
    errs.push(fieldErr.notSupported(`${path}.reinvocationPolicy`, hook.reinvocationPolicy, reinvocationPolicies));
  }
  errs.push(...validateClientConfig(obj(hook.clientConfig), `${path}.clientConfig`));
  if (!opts.ignoreMatchConditions) errs.push(...validateMatchConditions(arr(hook.matchConditions), `${path}.matchConditions`, false));
  return errs;
}

export function validateWebhookConfiguration(o: KubeObject, kind: WebhookKind, opts: WebhookOptions = createOptions): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  arr(o.webhooks).forEach((raw, i) => {
    const hook = obj(raw);
    const path = `webhooks[${i}]`;
    errs.push(...validateWebhook(hook, kind, opts, path));
    errs.push(...validateAdmissionReviewVersions(arr(hook.admissionReviewVersions), opts.requireRecognizedAdmissionReviewVersion, `${path}.admissionReviewVersions`));
    const name = str(hook.name);
    if (opts.requireUniqueWebhookNames && name.length > 0) {
      if (names.has(name)) errs.push({ type: 'FieldValueDuplicate', field: `${path}.name`, detail: `Duplicate value: ${JSON.stringify(name)}` });
      else names.add(name);
    }
  });
  return errs;
}

/** What an update tolerates: only the strictness the stored webhooks already satisfied. */
function updateOptions(o: KubeObject, old: KubeObject): WebhookOptions {
  const hooks = arr(old.webhooks).map(obj);
  const now = arr(o.webhooks).map(obj);
  const names = hooks.map((h) => str(h.name));
  return {
    requireNoSideEffects: hooks.every((h) => typeof h.sideEffects === 'string' && noSideEffects.includes(h.sideEffects)),
    requireRecognizedAdmissionReviewVersion: hooks.every((h) => {
      const versions = arr(h.admissionReviewVersions);
      return versions.length === 0 || versions.some((v) => acceptedReviewVersions.includes(str(v)));
    }),
    requireUniqueWebhookNames: new Set(names).size === names.length,
    allowInvalidLabelValueInSelector: hooks.some((h) => validateSelector(h.namespaceSelector, {}, '').length > 0 || validateSelector(h.objectSelector, {}, '').length > 0),
    ignoreMatchConditions: now.length === hooks.length && now.every((h, i) => JSON.stringify(h.matchConditions ?? null) === JSON.stringify(hooks[i].matchConditions ?? null)),
  };
}

function webhookConfiguration(resource: string, kind: WebhookKind): KindDefinition {
  return {
    group: 'admissionregistration.k8s.io', version: 'v1', resource,
    generation: true,
    strategy: {
      defaults: (o) => defaultWebhooks(o, kind),
      // The configuration has no spec: its generation follows the webhooks.
      prepareForUpdate(o, old) {
        if (JSON.stringify(o.webhooks ?? null) !== JSON.stringify(old.webhooks ?? null)) o.metadata.generation = (old.metadata.generation ?? 0) + 1;
      },
      validate: (o) => validateWebhookConfiguration(o, kind),
      validateUpdate: (o, old) => validateWebhookConfiguration(o, kind, updateOptions(o, old)),
    },
    table: {
      columns: [column('Webhooks', 'integer', 'Webhooks indicates the number of webhooks registered in this configuration'), ageColumn],
      cells: (o) => [arr(o.webhooks).length, ageOf(o.metadata.creationTimestamp)],
    },
  };
}

export const mutatingWebhookConfigurations = webhookConfiguration('mutatingwebhookconfigurations', 'mutating');
export const validatingWebhookConfigurations = webhookConfiguration('validatingwebhookconfigurations', 'validating');
