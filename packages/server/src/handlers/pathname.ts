/**
 * The name a request addresses in its path, checked as the generic Store's key functions check
 * it before reaching storage (apiserver registry/generic/registry NamespaceKeyFunc and
 * NoNamespaceKeyFunc over apimachinery's path.IsValidPathSegmentName): `.`, `..` and names
 * holding `/` or `%` (`%2F` decoded) are 400 `Name parameter invalid: "..": may not be '..'`.
 */
import { goQuote, newBadRequest } from '@windlass/machinery';

export function checkPathSegmentName(name: string): void {
  let problems: string[];
  if (name === '.' || name === '..') problems = [`may not be '${name}'`];
  else problems = ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
  if (problems.length > 0) throw newBadRequest(`Name parameter invalid: ${goQuote(name)}: ${problems.join(';')}`);
}
