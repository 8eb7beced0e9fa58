/**
 * A webhook's matchConditions (kube's matchconditions.matcher): CEL expressions over `object`,
 * `oldObject` and `request`, evaluated on the object in the version the webhook is called with.
 * Any false condition skips the webhook; errors (and expressions that do not compile) follow the
 * failurePolicy: Fail refuses the request, Ignore skips the webhook.
 */
import { celEnv, isCelError, parse, plan, type CelInput } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import type { MatchCondition } from './types.js';

const env = celEnv({ funcs: strings });
type Program = (bindings: Record<string, CelInput>) => unknown;
const programs = new Map<string, Program | Error>();

function compile(expr: string): Program | Error {
  let p = programs.get(expr);
  if (p === undefined) {
    try {
      const planned = plan(env, parse(expr));
      p = (bindings) => planned(bindings as never);
    } catch (err) {
      p = err instanceof Error ? err : new Error(String(err));
    }
    programs.set(expr, p);
  }
  return p;
}

/** A JSON value as kube's unstructured CEL values: integral numbers are ints. */
export function toCelValue(v: unknown): CelInput {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return v.map(toCelValue) as CelInput;
  if (typeof v === 'object') return new Map(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, toCelValue(x)])) as CelInput;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  return v as CelInput;
}

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
