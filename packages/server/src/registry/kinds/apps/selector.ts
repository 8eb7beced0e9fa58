/**
 * A workload's spec.selector as kube's apps validation sees it beyond ValidateLabelSelector:
 * whether LabelSelectorAsSelector accepts it (its failure is an error of the workload's own),
 * and the selector and label maps as encoding/json prints them in field errors (kube 1.35
 * renders complex values as JSON).
 */
import { isQualifiedName, isValidLabelValue } from '@windlass/machinery';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => String(x)) : []);

/**
 * Whether kube's LabelSelectorAsSelector accepts the selector: its requirements are built with
 * labels.NewRequirement, which checks keys, operators and values. A nil selector is accepted
 * (it selects nothing).
 */
export function labelSelectorConvertible(sel: unknown): boolean {
  if (!isObject(sel)) return true;
  for (const [k, v] of Object.entries(isObject(sel.matchLabels) ? sel.matchLabels : {})) {
    if (isQualifiedName(k).length > 0 || isValidLabelValue(String(v)).length > 0) return false;
  }
  for (const raw of Array.isArray(sel.matchExpressions) ? sel.matchExpressions : []) {
    const req = isObject(raw) ? raw : {};
    const values = strings(req.values);
    if (isQualifiedName(typeof req.key === 'string' ? req.key : '').length > 0) return false;
    switch (req.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) return false;
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) return false;
        break;
      default:
        return false;
    }
    if (values.some((v) => isValidLabelValue(v).length > 0)) return false;
  }
  return true;
}

/** Whether a set selector has no requirement at all (`len(MatchLabels)+len(MatchExpressions) == 0`). */
export function labelSelectorIsEmpty(sel: unknown): boolean {
  const s = isObject(sel) ? sel : {};
  const labels = isObject(s.matchLabels) ? Object.keys(s.matchLabels).length : 0;
  const exprs = Array.isArray(s.matchExpressions) ? s.matchExpressions.length : 0;
  return labels + exprs === 0;
}

/** A *metav1.LabelSelector as encoding/json writes it: struct order, empty fields omitted, map keys sorted. */
export function labelSelectorJSON(sel: unknown): unknown {
  if (!isObject(sel)) return null;
  const out: Record<string, unknown> = {};
  if (isObject(sel.matchLabels) && Object.keys(sel.matchLabels).length > 0) out.matchLabels = sortedMap(sel.matchLabels);
  if (Array.isArray(sel.matchExpressions) && sel.matchExpressions.length > 0) {
    out.matchExpressions = sel.matchExpressions.map((raw) => {
      const r = isObject(raw) ? raw : {};
      const e: Record<string, unknown> = { key: typeof r.key === 'string' ? r.key : '', operator: typeof r.operator === 'string' ? r.operator : '' };
      if (Array.isArray(r.values) && r.values.length > 0) e.values = r.values;
      return e;
    });
  }
  return out;
}

/** A map[string]string as encoding/json writes it: keys sorted, nil as null. */
export function sortedMap(m: unknown): Record<string, unknown> | null {
  if (!isObject(m)) return null;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(m).sort()) out[k] = m[k];
  return out;
}

/** LabelSelectorHasInvalidLabelValue: an expression value that is not a valid label value. */
export function selectorHasInvalidLabelValue(sel: unknown): boolean {
  if (!isObject(sel) || !Array.isArray(sel.matchExpressions)) return false;
  return sel.matchExpressions.some((e) => isObject(e) && strings(e.values).some((v) => isValidLabelValue(v).length > 0));
}
