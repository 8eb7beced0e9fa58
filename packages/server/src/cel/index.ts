/**
 * Kubernetes 1.35's CEL libraries for @bufbuild/cel: what kube-apiserver's base environment
 * (k8s.io/apiserver pkg/cel/environment/base.go) adds to standard CEL, for CRD validation rules
 * and admission policies alike.
 *
 * Bound: cel-go's strings extension (version 2; ./strings.ts where @bufbuild/cel's differs) and
 * its conversions (./conversions.ts), kube's lists, regex, url, quantity, ip, cidr, format, semver
 * and authorizer libraries, cel-go's sets and lists (version 3) extensions, optional values and
 * two-variable comprehensions (their syntax brought to helper calls by ./syntax.ts, which every
 * expression is parsed with). Kube's base environment has no math extension and no cel.bind, so
 * neither is bound here.
 */
import { celEnv, type CelEnv, type CelFunc } from '@bufbuild/cel';
import { structural } from '@windlass/schemas';
import { formatFunctions } from './format.js';
import { syntaxHelpers } from './helpers.js';
import { authzFunctions } from './authz.js';
import { conversionFunctions } from './conversions.js';
import { cidrFunctions, ipFunctions } from './ip.js';
import { listFunctions } from './lists.js';
import { kubeTypeRegistry } from './opaque.js';
import { optionalFunctions } from './optional.js';
import { quantityFunctions } from './quantity.js';
import { regexFunctions } from './regex.js';
import { semverFunctions } from './semver.js';
import { setsFunctions } from './sets.js';
import { stringFunctions } from './strings.js';
import { urlFunctions } from './urls.js';

export const kubeFunctions: CelFunc[] = [
  ...stringFunctions,
  ...conversionFunctions,
  ...listFunctions,
  ...regexFunctions,
  ...urlFunctions,
  ...quantityFunctions,
  ...setsFunctions,
  ...ipFunctions,
  ...cidrFunctions,
  ...formatFunctions,
  ...semverFunctions,
  ...optionalFunctions,
  ...authzFunctions,
  ...syntaxHelpers,
];

/** The environment CRD validation rules and admission policies compile in. */
export function kubeCelEnv(): CelEnv {
  // matches() on compiled patterns kept across calls (@bufbuild/cel's own compiles on every call).
  return celEnv({ funcs: kubeFunctions, registry: kubeTypeRegistry, re2: { compile: structural.compileGoRegexp } });
}

export { parseKube } from './syntax.js';
