/**
 * A review's spec as the request attributes an authorizer judges (kube's
 * registry/authorization/util): an empty version means every version, and field and label
 * selectors (AuthorizeWithSelectors) are parsed so that unparsable ones are reported in
 * status.evaluationError. RBAC itself does not look at selectors.
 */
import { parseFieldSelector, parseLabelSelector } from '@windlass/machinery';
import type { Attributes, UserInfo } from '../../../rbac/index.js';
import type { AccessReviewSpec, NonResourceAttributes, ResourceAttributes, SelectorAttributes } from './validation.js';

/** How much of a selector survived parsing: all of it, some requirements, or none. */
type SelectorParse = 'ok' | 'partial' | 'ignored';

function parseOrFail(parse: () => unknown): boolean {
  try {
    parse();
    return true;
  } catch {
    return false;
  }
}

function fieldSelectorParse(sel: SelectorAttributes | null | undefined): SelectorParse {
  if (!sel) return 'ok';
  if (sel.rawSelector) return parseOrFail(() => parseFieldSelector(sel.rawSelector!)) ? 'ok' : 'ignored';
  const reqs = sel.requirements ?? [];
  // Field selectors only express `=` and `!=`: In and NotIn of exactly one value.
  const good = reqs.filter((r) => (r.operator === 'In' || r.operator === 'NotIn') && (r.values ?? []).length === 1).length;
  if (good === reqs.length) return 'ok';
  return good > 0 ? 'partial' : 'ignored';
}

const labelOperators: Record<string, (key: string, values: string[]) => string> = {
  In: (k, v) => `${k} in (${v.join(',')})`,
  NotIn: (k, v) => `${k} notin (${v.join(',')})`,
  Exists: (k) => k,
  DoesNotExist: (k) => `!${k}`,
};

function labelSelectorParse(sel: SelectorAttributes | null | undefined): SelectorParse {
  if (!sel) return 'ok';
  if (sel.rawSelector) return parseOrFail(() => parseLabelSelector(sel.rawSelector!)) ? 'ok' : 'ignored';
  const reqs = sel.requirements ?? [];
  const good = reqs.filter((r) => {
    const print = labelOperators[r.operator ?? ''];
    return print !== undefined && parseOrFail(() => parseLabelSelector(print(r.key ?? '', r.values ?? [])));
  }).length;
  if (good === reqs.length) return 'ok';
  return good > 0 ? 'partial' : 'ignored';
}

export function resourceAttributesFrom(user: UserInfo, a: ResourceAttributes): Attributes {
  return {
    user, verb: a.verb ?? '', resourceRequest: true, namespace: a.namespace ?? '', apiGroup: a.group ?? '',
    apiVersion: a.version || '*', resource: a.resource ?? '', subresource: a.subresource ?? '', name: a.name ?? '',
  };
}

export function nonResourceAttributesFrom(user: UserInfo, a: NonResourceAttributes): Attributes {
  return { user, verb: a.verb ?? '', resourceRequest: false, path: a.path ?? '' };
}

/** The attributes of a review's spec, for the given user. */
export function attributesFrom(user: UserInfo, spec: AccessReviewSpec): Attributes {
  return spec.resourceAttributes ? resourceAttributesFrom(user, spec.resourceAttributes) : nonResourceAttributesFrom(user, spec.nonResourceAttributes ?? {});
}

/** The user a SubjectAccessReview asks about. */
export function userFromSpec(spec: AccessReviewSpec): UserInfo {
  const extra: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(spec.extra ?? {})) extra[k] = v ?? [];
  return { name: spec.user ?? '', uid: spec.uid ?? '', groups: spec.groups ?? [], extra };
}

/** kube's BuildEvaluationError: the authorizer's error, then what was made of the selectors, joined by "; ". */
export function evaluationError(authorizerError: string | undefined, spec: AccessReviewSpec): string {
  const out: string[] = authorizerError ? [authorizerError] : [];
  const a = spec.resourceAttributes;
  if (a) {
    for (const [name, parse] of [['fieldSelector', fieldSelectorParse(a.fieldSelector)], ['labelSelector', labelSelectorParse(a.labelSelector)]] as const) {
      if (parse === 'partial') out.push(`spec.resourceAttributes.${name} partially ignored due to parse error`);
      if (parse === 'ignored') out.push(`spec.resourceAttributes.${name} ignored due to parse error`);
    }
  }
  return out.join('; ');
}
