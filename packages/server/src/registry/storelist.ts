/**
 * list for one resource by spec 4.4's resourceVersion semantics: from its watch cache where
 * they allow (consistent, Any, NotOlderThan, Exact while a snapshot holds the revision),
 * else from the store, paging through it until `limit` objects match.
 */
import { newBadRequest, newResourceExpired, type StatusError } from '@windlass/machinery';
import { isStorageError, type Storage } from '@windlass/storage';
import { CachedObject, type AttrsFunc } from '../cacher/cachedobject.js';
import type { Cacher } from '../cacher/cacher.js';
import { pageFromTree } from '../cacher/listing.js';
import type { ListSeries } from '../metrics/listmetrics.js';
import { decodeContinue, encodeContinue } from './continuetoken.js';
import { waitForRevision } from './freshness.js';
import { parseResourceVersion, type ListOptions } from './listoptions.js';
import type { ObjectMatcher } from './matcher.js';
import type { ListResult } from './store.js';

/** What listing needs of a Store (read when each list starts: the server sets the cacher later). */
export interface ListSource {
  readonly storage: Storage;
  readonly cacher?: Cacher;
  readonly attrsOf: AttrsFunc;
  readonly lists?: ListSeries;
}

export async function listFrom(src: ListSource, prefix: string, match: ObjectMatcher, opts: ListOptions): Promise<ListResult> {
  const c = src.cacher;
  if (opts.continue) {
    // The token is decoded first, as kube's storage.ValidateListOptions: a bad one is reported before a resourceVersion beside it.
    const token = decodeContinue(opts.continue, prefix);
    if (opts.resourceVersion !== '' && opts.resourceVersion !== '0') throw newBadRequest('specifying resource version is not allowed when using continue');
    if (token.rv < 0) {
      // An inconsistent continuation (after compaction) reads the latest state.
      if (c) return pageFromTree(await currentState(src, opts.limit > 0), prefix, match, opts.limit, token.startKey, src.lists?.cache);
      return listFromStorage(src, prefix, match, 0, opts.limit, token.startKey, false);
    }
    return listExact(src, prefix, match, token.rv, opts.limit, token.startKey, true);
  }
  if (opts.resourceVersion === '') {
    const rev = c ? await c.consistentRevision() : null;
    if (c && rev !== null) return pageFromTree(c.current(opts.limit > 0), prefix, match, opts.limit, undefined, src.lists?.consistentCache);
    return listFromStorage(src, prefix, match, 0, opts.limit, undefined, false);
  }
  if (opts.resourceVersion === '0') {
    // Any: served from the cache as one complete list, without paging (as kube's cacher).
    if (c) return pageFromTree(await currentState(src, false), prefix, match, 0, undefined, src.lists?.cache);
    return listFromStorage(src, prefix, match, 0, 0, undefined, false);
  }
  const rv = parseResourceVersion(opts.resourceVersion);
  const exact = opts.resourceVersionMatch === 'Exact' || (opts.resourceVersionMatch === '' && opts.limit > 0);
  if (exact) return listExact(src, prefix, match, rv, opts.limit, undefined, false);
  if (c) {
    await c.waitUntilFresh(rv);
    return pageFromTree(c.current(opts.limit > 0), prefix, match, opts.limit, undefined, src.lists?.cache);
  }
  await waitForRevision(src.storage, rv);
  return listFromStorage(src, prefix, match, 0, opts.limit, undefined, false);
}

async function currentState(src: ListSource, paged: boolean) {
  await src.cacher!.whenReady();
  return src.cacher!.current(paged);
}

/** Exact: from a cache snapshot when one holds the revision, else from the store at it, else 410. */
async function listExact(src: ListSource, prefix: string, match: ObjectMatcher, rv: number, limit: number, startKey: string | undefined, fromContinue: boolean): Promise<ListResult> {
  if (src.cacher) {
    await src.cacher.waitUntilFresh(rv);
    const tree = src.cacher.cache.snapshotAt(rv);
    if (tree) return pageFromTree({ tree, revision: rv }, prefix, match, limit, startKey, src.lists?.cache);
  } else {
    await waitForRevision(src.storage, rv);
  }
  return listFromStorage(src, prefix, match, rv, limit, startKey, fromContinue);
}

async function listFromStorage(src: ListSource, prefix: string, match: ObjectMatcher, revision: number, limit: number, startKey: string | undefined, fromContinue: boolean): Promise<ListResult> {
  const items: CachedObject[] = [];
  let readRevision = revision;
  let more = false;
  let count = 0;
  let lastKey: string | undefined;
  let fetched = 0, evaluated = 0;
  try {
    // With a selector, keep reading pages until `limit` objects match (as kube's etcd3 store).
    for (;;) {
      const res = await src.storage.range(prefix, { prefix: true, revision: readRevision || undefined, limit: limit || undefined, startKey });
      readRevision = res.revision;
      if (count === 0) count = res.count;
      fetched += res.items.length;
      let consumedAll = true;
      for (let i = 0; i < res.items.length; i++) {
        const kv = res.items[i];
        lastKey = kv.key;
        evaluated++;
        const obj = CachedObject.fromStored(kv.key, kv.modRevision, kv.value, src.attrsOf);
        if (match.matches(obj.attrs)) items.push(obj);
        if (limit && items.length >= limit) {
          consumedAll = i === res.items.length - 1;
          break;
        }
      }
      more = res.more || !consumedAll;
      if (!limit || items.length >= limit || !more) break;
      startKey = lastKey + '\u0000';
    }
  } catch (err) {
    if (isStorageError(err, 'Compacted')) {
      if (fromContinue) throw expiredContinue(prefix, startKey!);
      throw newResourceExpired('The resourceVersion for the provided list is too old.');
    }
    throw err;
  } finally {
    src.lists?.fromStorage(fetched, evaluated, items.length); // as kube's GetList: failed lists count too
  }
  const result: ListResult = { items, resourceVersion: String(readRevision) };
  if (more && lastKey !== undefined) {
    result.continue = encodeContinue(lastKey, prefix, readRevision);
    if (match.empty) {
      const remaining = count - items.length;
      if (remaining > 0) result.remainingItemCount = remaining;
    }
  }
  return result;
}

function expiredContinue(prefix: string, startKey: string): StatusError {
  const err = newResourceExpired('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.');
  // The inconsistent token resumes after the same key at the latest revision (rv -1).
  const lastKey = startKey.endsWith('\u0000') ? startKey.slice(0, -1) : startKey;
  err.status.metadata.continue = encodeContinue(lastKey, prefix, -1);
  return err;
}
