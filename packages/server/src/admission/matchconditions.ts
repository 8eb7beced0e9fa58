/**
 * matchConditions of webhooks and ValidatingAdmissionPolicies (kube's matchconditions.matcher,
 * which both use): CEL expressions over `object`, `oldObject`, `request` (and a policy's
 * params). Any false condition skips the webhook or policy; errors (and expressions that do not
 * compile) follow the failurePolicy: Fail refuses the request, Ignore skips.
 */
import type { CelInput } from '@bufbuild/cel';
import { evaluateExpression } from '../cel/values.js';

export interface MatchCondition {
  name: string;
  expression: string;
}

export type MatchResult = { matches: true } | { matches: false } | { error: string };

/** `bindings`: the CEL variables (object, oldObject, request; a policy's params and namespaceObject too). */
export function evaluateMatchConditions(conditions: MatchCondition[], bindings: Record<string, CelInput>, failurePolicy: string): MatchResult {
  const errors: string[] = [];
  for (const c of conditions) {
    const result = evaluateExpression(c.expression, bindings);
    if (result === false) return { matches: false };
    if (result === true) continue;
    errors.push(result instanceof Error ? result.message : `expression '${c.expression}' resulted in error: expected bool, got ${typeof result}`);
  }
  if (errors.length === 0) return { matches: true };
  if (failurePolicy === 'Ignore') return { matches: false };
  // kube's utilerrors.NewAggregate: one error as itself, several in brackets.
  return { error: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` };
}
