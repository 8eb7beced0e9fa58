/** Evaluating an expression in kube's environment for the libraries' tests. */
import { isCelError, isCelList, isCelMap, isCelUint, plan } from '@bufbuild/cel';
import { isReflectMessage } from '@bufbuild/protobuf/reflect';
import { kubeCelEnv, parseKube } from './index.js';

const env = kubeCelEnv();

/** A CEL value as plain data: lists as arrays, maps as objects, kube's types as `Type(key)`. */
function plain(v: unknown): unknown {
  if (isCelList(v)) return [...v].map(plain);
  if (isCelMap(v)) return Object.fromEntries([...v].map(([k, x]) => [String(k), plain(x)]));
  if (isCelUint(v)) return v.value;
  if (isReflectMessage(v)) return `${v.desc.typeName}(${String(v.get(v.desc.fields[0]))})`;
  return v;
}

/** The value of `expr`, or `{ error }` with the evaluation error's text. */
export function evalCel(expr: string, vars: Record<string, unknown> = {}): unknown {
  const r = plan(env, parseKube(expr))(vars as never);
  return isCelError(r) ? { error: r.message } : plain(r);
}

export type Case = [expr: string, expected: unknown];

/** Each case's expression evaluates to its expected value (an `{ error }` for an error). */
export function expectCases(cases: Case[]): void {
  for (const [expr, expected] of cases) {
    expect({ expr, result: evalCel(expr) }).toEqual({ expr, result: expected });
  }
}
