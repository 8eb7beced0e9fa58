/**
 * kube's cost estimates for its CEL libraries (k8s.io/apiserver pkg/cel/library/cost.go,
 * EstimateCallCost): what a call of a Kubernetes library function, or of the strings extension's
 * functions kube prices itself, is estimated to cost, from its arguments' sizes.
 */
import type { CelT } from './checktypes.js';
import { MAX, add, multiply, one, range, regexStringLength, stringTraversal, times, type AstNode, type CallEstimate, type Range } from './cost.js';

/** kube's MaxNameFormatRegexSize and MaxFormatSize. */
const maxNameFormatRegexSize = 128;
const maxFormatSize = 64n;

const isTextual = (t: CelT | undefined) => t?.k === 'prim' && (t.name === 'string' || t.name === 'bytes');

/** O(1) equality of kube's types, by their CEL type names. */
const unitEquality = new Set(['net.IP', 'net.CIDR', 'kubernetes.Quantity', 'kubernetes.Semver', 'kubernetes.authorization.Authorizer',
  'kubernetes.authorization.PathCheck', 'kubernetes.authorization.GroupCheck', 'kubernetes.authorization.ResourceCheck', 'kubernetes.authorization.Decision']);

/** A list's element, as a node of its own (kube's listElementNode). */
function elementNode(list: AstNode): AstNode | undefined {
  if (list.type.k !== 'list') return undefined;
  return { path: list.path ? [...list.path, '@items'] : undefined, type: list.type.elem };
}

/**
 * One bound of replace()'s result: how many replacements, and how much of the input is kept,
 * for an input of `size` (kube's estimate, for the longest and the shortest result alike).
 */
function replacements(size: bigint, emptyPattern: boolean, neverLonger: boolean, patternSize: bigint): [count: bigint, retained: bigint] {
  if (emptyPattern) return [size < MAX ? size + 1n : size, size];
  if (neverLonger) return [0n, size];
  return [BigInt(Math.ceil(Number(size) / Number(patternSize))), 0n];
}

function replaceEstimate(sz: Range, toReplace: Range, replaceWith: Range): CallEstimate {
  // The longest result: the smallest substrings replaced by the longest replacement as often as
  // possible; the shortest, the reverse.
  const [maxCount, maxRetained] = replacements(sz.max, toReplace.min === 0n, replaceWith.max <= toReplace.min, toReplace.min);
  const [minCount, minRetained] = replacements(sz.min, toReplace.max === 0n, toReplace.max <= replaceWith.min, toReplace.max);
  return { cost: times(sz, 2 * stringTraversal), resultSize: add(multiply(range(minCount, maxCount), replaceWith), range(minRetained, maxRetained)) };
}

function selectorCost(length: Range): Range {
  const parse = times(length, stringTraversal);
  const requirements = times(times(length, 0.5), 10 + 40);
  return add(add(range(10n), parse), requirements);
}

/**
 * kube's estimate for a call, or undefined where kube leaves it to cel-go. `size` is the size
 * of an argument as the estimator knows it (computed, from the schema, or unknown).
 */
export function libraryCallCost(fn: string, overloadId: string, target: AstNode | undefined, args: AstNode[], size: (n: AstNode) => Range): CallEstimate | undefined {
  switch (fn) {
    case 'check':
      return { cost: range(350000n) };
    case 'serviceAccount': case 'path': case 'group': case 'resource': case 'subresource': case 'namespace': case 'name':
    case 'allowed': case 'reason': case 'error': case 'errored':
      return { cost: one };
    case 'fieldSelector': case 'labelSelector':
      if (args.length === 1) return { cost: selectorCost(size(args[0])) };
      break;
    case 'isSorted': case 'sum': case 'max': case 'min': case 'indexOf': case 'lastIndexOf':
      if (target) {
        const el = elementNode(target);
        if (el) {
          const elCost = isTextual(el.type) ? add(one, times(size(el), stringTraversal)) : one;
          return { cost: multiply(size(target), elCost) };
        }
        return { cost: times(size(target), stringTraversal) };
      }
      break;
    case 'url': case 'jsonpatch.escapeKey':
      if (args.length === 1) {
        const sz = size(args[0]);
        return { cost: times(sz, stringTraversal), resultSize: sz };
      }
      break;
    case 'lowerAscii': case 'upperAscii': case 'substring': case 'trim':
      if (target) {
        const sz = size(target);
        return { cost: times(sz, stringTraversal), resultSize: sz };
      }
      break;
    case 'replace':
      if (target && args.length >= 2) return replaceEstimate(size(target), size(args[0]), size(args[1]));
      break;
    case 'split':
      if (target) {
        const sz = size(target);
        const limit = args[1]?.expr?.exprKind;
        const max = limit?.case === 'constExpr' && limit.value.constantKind.case === 'int64Value' ? limit.value.constantKind.value : sz.max;
        return { cost: times(sz, 2 * stringTraversal), resultSize: range(0n, max) };
      }
      break;
    case 'join':
      if (target) {
        const list = size(target);
        const el = elementNode(target);
        let sz = el ? multiply(list, size(el)) : range(0n);
        if (args.length > 0) {
          const separators = range(list.min > 0n ? list.min - 1n : 0n, list.max > 0n ? list.max - 1n : 0n);
          sz = add(sz, multiply(size(args[0]), separators));
        }
        return { cost: times(sz, stringTraversal), resultSize: sz };
      }
      break;
    case 'find': case 'findAll':
      if (target && args.length >= 1) {
        const sz = size(target);
        const str = times(add(sz, one), stringTraversal);
        return { cost: multiply(str, times(size(args[0]), regexStringLength)), resultSize: range(0n, sz.max) };
      }
      break;
    case 'cidr': case 'isIP': case 'isCIDR': case 'quantity': case 'isQuantity': case 'semver': case 'isSemver':
      if (args.length >= 1) return { cost: times(size(args[0]), stringTraversal) };
      break;
    case 'ip':
      if (overloadId === 'cidr_ip') return { cost: one };
      if (args.length >= 1) return { cost: times(size(args[0]), stringTraversal) };
      break;
    case 'ip.isCanonical':
      if (args.length >= 1) return { cost: times(size(args[0]), 2 * stringTraversal) };
      break;
    case 'masked': case 'prefixLength': case 'family': case 'isUnspecified': case 'isLoopback': case 'isLinkLocalMulticast':
    case 'isLinkLocalUnicast': case 'isGlobalUnicast':
      return { cost: one };
    case 'containsIP': case 'containsCIDR':
      if (args.length >= 1) {
        const ipBytes = range(4n, 16n);
        let cost = times(add(ipBytes, ipBytes), stringTraversal);
        if (fn === 'containsCIDR') cost = add(add(cost, times(ipBytes, stringTraversal)), one);
        if (overloadId === 'cidr_contains_ip_string' || overloadId === 'cidr_contains_cidr_string') cost = add(cost, times(size(args[0]), stringTraversal));
        return { cost };
      }
      break;
    case 'validate':
      if (args.length >= 1) return { cost: times(times(size(args[0]), stringTraversal), maxNameFormatRegexSize * regexStringLength) };
      break;
    case 'format.named': case 'sign': case 'asInteger': case 'isInteger': case 'asApproximateFloat': case 'isGreaterThan': case 'isLessThan':
    case 'compareTo': case 'add': case 'sub': case 'major': case 'minor': case 'patch':
    case 'getScheme': case 'getHostname': case 'getHost': case 'getPort': case 'getEscapedPath': case 'getQuery':
      return { cost: one };
    case '_==_':
      if (args.length === 2) {
        const [l, r] = [args[0].type, args[1].type];
        if (l.k === 'opaque' && r.k === 'opaque' && l.name === r.name) {
          if (unitEquality.has(l.name)) return { cost: one };
          if (l.name === 'kubernetes.NamedFormat') return { cost: times(range(1n, maxFormatSize), stringTraversal) };
          if (l.name === 'kubernetes.URL') {
            // kube sizes both sides by the right one's computed size.
            const rs = args[1].computedSize;
            return { cost: times(range(1n, rs ? rs.max : 1n), stringTraversal) };
          }
        }
      }
      break;
  }
  return undefined;
}
