/**
 * kube's naming controller (pkg/controller/status/naming_controller.go) and establishing
 * controller (pkg/controller/establish): the names a CRD asks for are accepted unless another
 * CRD of the same group accepted them first; NamesAccepted says which conflicted, and
 * Established turns True once the names are accepted (kube waits for its handler to see them;
 * here the replica that writes the condition serves them from the same cache).
 */
import type { CRD, CRDCondition, CRDNames } from './types.js';
import { condition } from './types.js';

function usedNames(others: CRD[], group: string): { resources: Set<string>; kinds: Set<string> } {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const o of others) {
    if (o.spec.group !== group) continue;
    const a = o.status?.acceptedNames ?? {};
    for (const n of [a.plural, a.singular, ...(a.shortNames ?? [])]) if (n) resources.add(n);
    for (const n of [a.kind, a.listKind]) if (n) kinds.add(n);
  }
  return { resources, kinds };
}

function conflict(requested: string | undefined, accepted: string | undefined, used: Set<string>): string | undefined {
  if ((requested ?? '') === (accepted ?? '')) return undefined;
  if (!used.has(requested ?? '')) return undefined;
  return `${JSON.stringify(requested ?? '')} is already in use`;
}

/** kube's calculateNamesAndConditions: the accepted names, NamesAccepted and Established (before establishing). */
export function calculateNames(crd: CRD, others: CRD[]): { names: Partial<CRDNames>; namesAccepted: CRDCondition; established: CRDCondition } {
  const { resources, kinds } = usedNames(others.filter((o) => o.metadata.name !== crd.metadata.name), crd.spec.group);
  const requested = crd.spec.names;
  const accepted: Partial<CRDNames> = crd.status?.acceptedNames ?? {};
  const names: Partial<CRDNames> = { ...accepted };
  let namesAccepted: CRDCondition = { type: 'NamesAccepted', status: 'Unknown' };
  const fail = (reason: string, message: string) => { namesAccepted = { type: 'NamesAccepted', status: 'False', reason, message }; };

  const plural = conflict(requested.plural, accepted.plural, resources);
  if (plural) fail('PluralConflict', plural);
  else names.plural = requested.plural;
  const singular = conflict(requested.singular, accepted.singular, resources);
  if (singular) fail('SingularConflict', singular);
  else names.singular = requested.singular;
  if (JSON.stringify(requested.shortNames ?? null) !== JSON.stringify(accepted.shortNames ?? null)) {
    const existing = new Set(accepted.shortNames ?? []);
    const errs = (requested.shortNames ?? []).filter((s) => !existing.has(s)).map((s) => conflict(s, '', resources)).filter((e): e is string => !!e);
    // utilerrors.NewAggregate: one error alone, several as [a, b].
    if (errs.length > 0) fail('ShortNamesConflict', errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
    else names.shortNames = requested.shortNames;
  }
  const kind = conflict(requested.kind, accepted.kind, kinds);
  if (kind) fail('KindConflict', kind);
  else names.kind = requested.kind;
  const listKind = conflict(requested.listKind, accepted.listKind, kinds);
  if (listKind) fail('ListKindConflict', listKind);
  else names.listKind = requested.listKind;
  if (requested.categories !== undefined) names.categories = requested.categories;
  else delete names.categories;
  if (namesAccepted.status === 'Unknown') namesAccepted = { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };

  let established: CRDCondition = condition(crd, 'Established') ?? { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
  if (established.status !== 'True' && namesAccepted.status === 'True') {
    established = { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' };
  }
  return { names, namesAccepted, established };
}

/**
 * kube's SetCRDCondition: a condition whose status changes gets a new lastTransitionTime;
 * one whose status stays keeps its time and takes the new reason and message.
 */
export function setCondition(crd: CRD, c: CRDCondition, now: string): void {
  const status = (crd.status ??= {});
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((x) => x.type === c.type);
  if (i < 0) {
    conditions.push({ type: c.type, status: c.status, lastTransitionTime: now, reason: c.reason, message: c.message });
    return;
  }
  const old = conditions[i];
  conditions[i] = {
    type: c.type, status: c.status,
    lastTransitionTime: old.status !== c.status ? now : (old.lastTransitionTime ?? now),
    reason: c.reason, message: c.message,
  };
}

/** metav1.Time's RFC 3339 at second precision. */
export function nowRFC3339(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}
