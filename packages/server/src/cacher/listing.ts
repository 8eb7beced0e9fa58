/** Serving a list page from a cache tree (the current state or a snapshot). */
import { encodeContinue } from '../registry/continuetoken.js';
import type { ObjectMatcher } from '../registry/matcher.js';
import type { ListResult } from '../registry/store.js';
import type { CachedObject } from './cachedobject.js';
import type { Tree } from './watchcache.js';

/** `sink`: where the page reports the objects it visited and returned (apiserver_cache_list_*). */
export function pageFromTree(state: { tree: Tree; revision: number }, prefix: string, match: ObjectMatcher, limit: number, startKey?: string,
  sink?: { listed(fetched: number, returned: number): void }): ListResult {
  const items: CachedObject[] = [];
  let visited = 0;
  let lastKey: string | undefined;
  let more = false;
  let remaining = 0;
  for (const [key, obj] of state.tree.entries(startKey ?? prefix)) {
    if (!key.startsWith(prefix)) break;
    visited++;
    if (limit && items.length >= limit) {
      // Past the page: only counting what is left (remainingItemCount, without selectors).
      more = true;
      if (!match.empty) break;
      remaining++;
      continue;
    }
    lastKey = key;
    if (match.matches(obj.attrs)) items.push(obj);
  }
  sink?.listed(visited, items.length);
  const result: ListResult = { items, resourceVersion: String(state.revision) };
  if (more && lastKey !== undefined) {
    result.continue = encodeContinue(lastKey, prefix, state.revision);
    if (match.empty) result.remainingItemCount = remaining;
  }
  return result;
}
