/**
 * kube's limits on the estimated cost of a CRD's rules (apiextensions-apiserver's CRD validation):
 * each rule's cost is cel-go's estimate for one evaluation times how many times the rule may run
 * in one object (the product of the enclosing lists' and maps' maxItems and maxProperties, or,
 * under an unbounded one, as many of the node as fit in the largest request). A rule over
 * StaticEstimatedCostLimit, or all of a schema's rules together over
 * StaticEstimatedCRDCostLimit, refuse the CRD.
 */
import { fieldErr, type FieldError } from '@windlass/machinery';
import { structural } from '@windlass/schemas';
import type { Checked } from '../cel/check.js';
import { MAX, estimateCost, range, unknownSize, type AstNode, type Expr, type Range } from '../cel/cost.js';
import { libraryCallCost } from '../cel/librarycost.js';
import { maxRequestSizeBytes, type Decl } from './celtypes.js';

type Schema = structural.StructuralSchema;

export const staticEstimatedCostLimit = 10_000_000n;
export const staticEstimatedCRDCostLimit = 100_000_000n;

/** kube's sizeEstimator: a value reached from `self` (or `oldSelf`) has at most its declaration's elements. */
function sizeFromDecl(root: Decl, node: AstNode): Range | undefined {
  if (!node.path || node.path.length === 0) return undefined;
  let at: Decl | undefined = root;
  for (const step of node.path.slice(1)) {
    if (step === '@items' || step === '@values') at = at.elem;
    else if (step === '@keys') at = at.key;
    else at = at.fields?.get(step);
    if (!at) return undefined;
  }
  return range(0n, at.maxElements);
}

/** The most an expression is estimated to cost in one evaluation against `self` declared by `root`. */
export function maxCost(expr: Expr, checked: Checked, root: Decl): bigint {
  const estimator = {
    estimateSize: (n: AstNode) => sizeFromDecl(root, n),
    estimateCallCost: (fn: string, id: string, target: AstNode | undefined, args: AstNode[]) =>
      libraryCallCost(fn, id, target, args, (n) => n.computedSize ?? sizeFromDecl(root, n) ?? unknownSize),
  };
  return estimateCost(expr, checked.types, checked.overloads, estimator).max;
}

/** kube's multiplyWithOverflowGuard. */
export function timesCardinality(cost: bigint, cardinality: bigint): bigint {
  if (cost === 0n) return 0n;
  return MAX / cost < cardinality ? MAX : cost * cardinality;
}

/** kube's maxCardinality: how many values of at least `minSize` bytes fit in one request. */
export const cardinalityOfSize = (minSize: bigint) => maxRequestSizeBytes / (minSize + 1n);

/**
 * How many times a child of `parent` may occur in one object, given the parent's (undefined:
 * unbounded), as kube's CELSchemaContext counts it.
 */
export function childCardinality(parent: Schema, parentCardinality: bigint | undefined): bigint | undefined {
  if (parentCardinality === undefined) return undefined;
  let max: bigint | undefined = 1n;
  if (parent.type === 'object' && parent.additionalProperties !== undefined) max = parent.maxProperties === undefined ? undefined : BigInt(Math.max(0, parent.maxProperties));
  else if (parent.type === 'array') max = parent.maxItems === undefined ? undefined : BigInt(Math.max(0, parent.maxItems));
  return max === undefined ? undefined : timesCardinality(parentCardinality, max);
}

/** kube's getCostErrorMessage. */
export function costErrorMessage(name: string, cost: bigint, limit: bigint): string {
  const factor = Number(cost) / Number(limit);
  const shown = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${name} exceeds budget by factor of ${shown} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** The rules' costs over one schema: their sum and the (at most four) largest, each over 1% of the limit. */
export class TotalCost {
  total = 0n;
  private mostExpensive: Array<{ path: string; cost: bigint }> = [];

  observe(path: string, cost: bigint): void {
    this.total = this.total + cost > MAX ? MAX : this.total + cost;
    if (cost < staticEstimatedCRDCostLimit / 100n) return;
    this.mostExpensive.push({ path, cost });
    this.mostExpensive.sort((a, b) => (a.cost > b.cost ? -1 : a.cost < b.cost ? 1 : 0));
    this.mostExpensive = this.mostExpensive.slice(0, 4);
  }

  /** What kube says when the schema's rules together cost too much; `schemaPath` is the openAPIV3Schema's. */
  errors(schemaPath: string): FieldError[] {
    if (this.total <= staticEstimatedCRDCostLimit) return [];
    return [
      ...this.mostExpensive.map((e) => fieldErr.forbidden(e.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema')),
      fieldErr.forbidden(schemaPath, costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', this.total, staticEstimatedCRDCostLimit)),
    ];
  }
}
