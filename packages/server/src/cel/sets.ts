/**
 * cel-go's sets extension as kube 1.35 enables it (ext.Sets()): sets.contains, sets.equivalent
 * and sets.intersects over lists, membership by CEL equality.
 */
import { celFunc, CelScalar, listType, type CelList } from '@bufbuild/cel';
import { equalsCel } from './compare.js';

const LIST = listType(CelScalar.DYN);
const has = (list: CelList, v: unknown) => [...list].some((x) => equalsCel(x, v));
const contains = (list: CelList, sub: CelList) => [...sub].every((v) => has(list, v));

export const setsFunctions = [
  celFunc('sets.contains', [LIST, LIST], CelScalar.BOOL, (a, b) => contains(a, b)),
  celFunc('sets.equivalent', [LIST, LIST], CelScalar.BOOL, (a, b) => contains(a, b) && contains(b, a)),
  celFunc('sets.intersects', [LIST, LIST], CelScalar.BOOL, (a, b) => [...a].some((v) => has(b, v))),
];
