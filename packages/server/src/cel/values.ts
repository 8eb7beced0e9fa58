/** JSON values as admission's CEL expressions see them (object, oldObject, request, params). */
import { isCelError, type CelInput } from '@bufbuild/cel';
import { compileCel } from '../crd/cel.js';

/**
 * A JSON value as CEL sees it. Without the kind's schema at hand, integral numbers are CEL
 * ints, as kube types them for the integer fields every built-in kind has.
 */
export function toCelValue(v: unknown): CelInput {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return v.map(toCelValue) as CelInput;
  if (typeof v === 'object') return new Map(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, toCelValue(x)])) as CelInput;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  return v as CelInput;
}

/**
 * One admission expression evaluated as kube's CEL filter does: its value, or the Error kube
 * reports (`compilation failed: …`, `expression '…' resulted in error: …`).
 */
export function evaluateExpression(expression: string, bindings: Record<string, CelInput>): unknown {
  const program = compileCel(expression);
  if (program instanceof Error) return new Error(`compilation failed: ${program.message}`);
  let result: unknown;
  try {
    result = program(bindings);
  } catch (err) {
    result = err;
  }
  if (isCelError(result) || result instanceof Error) return new Error(`expression '${expression}' resulted in error: ${(result as Error).message.replace(/^field not found: /, 'no such key: ')}`);
  return result;
}
