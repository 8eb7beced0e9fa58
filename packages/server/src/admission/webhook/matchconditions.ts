/**
 * A webhook's matchConditions (kube's matchconditions.matcher): CEL expressions over `object`,
 * `oldObject` and `request`, evaluated on the object in the version the webhook is called with.
 * Any false condition skips the webhook; errors (and expressions that do not compile) follow the
 * failurePolicy: Fail refuses the request, Ignore skips the webhook.
 */
import { isCelError, type CelInput } from '@bufbuild/cel';
import { compileCel as compile } from '../../crd/cel.js';
import { toCelValue } from '../../cel/values.js';
import type { MatchCondition } from './types.js';

export type MatchResult = { matches: true } | { matches: false } | { error: string };

export function evaluateMatchConditions(conditions: MatchCondition[], vars: { object: unknown; oldObject: unknown; request: unknown }, failurePolicy: string): MatchResult {
  const bindings: Record<string, CelInput> = { object: toCelValue(vars.object), oldObject: toCelValue(vars.oldObject), request: toCelValue(vars.request) };
  const errors: string[] = [];
  for (const c of conditions) {
    const p = compile(c.expression);
    if (p instanceof Error) {
      errors.push(`compilation failed: ${p.message}`);
      continue;
    }
    let result: unknown;
    try {
      result = p(bindings);
    } catch (err) {
      result = err;
    }
    if (result === false) return { matches: false };
    if (result === true) continue;
    const why = isCelError(result) || result instanceof Error ? (result as Error).message.replace(/^field not found: /, 'no such key: ') : `expected bool, got ${typeof result}`;
    errors.push(`expression '${c.expression}' resulted in error: ${why}`);
  }
  if (errors.length === 0) return { matches: true };
  if (failurePolicy === 'Ignore') return { matches: false };
  // kube's utilerrors.NewAggregate: one error as itself, several in brackets.
  return { error: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` };
}
