/**
 * The resourceVersion semantics of spec 3.3, 3.4, 4.4 and 4.5, row by row, on both backends,
 * with kube-apiserver's status codes, reasons and messages.
 */
import { describeBackends } from '@windlass/storage/testing';
import { openWatch, startTestServer, type TestServer } from './testing/client.js';

const cms = '/api/v1/namespaces/default/configmaps';
const cm = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { v: name } });
const names = (r: { body: any }) => r.body.items.map((i: any) => i.metadata.name);

describeBackends('resourceVersion semantics', (ctx) => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry', cacher: { freshnessTimeoutMs: 400, bookmarkIntervalMs: 200 } });
  });
  afterEach(async () => {
    await t.close();
  });
  const create = async (name: string, labels: Record<string, string> = {}) => (await t.call('POST', cms, { body: cm(name, labels) })).body;
  const rvOf = (o: any) => Number(o.metadata.resourceVersion);

  describe('get (4.4)', () => {
    test('unset is Most Recent, "0" is Any, another value is Not older than; a future one is 504', async () => {
      const a = await create('a');
      const upd = await t.call('PATCH', `${cms}/a`, { body: { data: { v: '2' } }, contentType: 'application/merge-patch+json' });
      expect((await t.call('GET', `${cms}/a`)).body.data.v).toBe('2');
      const any = await t.call('GET', `${cms}/a?resourceVersion=0`);
      expect(any.status).toBe(200);
      expect(any.body.metadata.name).toBe('a');
      const nlt = await t.call('GET', `${cms}/a?resourceVersion=${rvOf(a)}`);
      expect(rvOf(nlt.body)).toBeGreaterThanOrEqual(rvOf(a));
      expect(nlt.body.data.v).toBe('2');
      const future = rvOf(upd.body) + 1000;
      const tooLarge = await t.call('GET', `${cms}/a?resourceVersion=${future}`);
      expect(tooLarge.status).toBe(504);
      expect(tooLarge.headers.get('retry-after')).toBe('1');
      expect(tooLarge.body).toMatchObject({ reason: 'Timeout', code: 504, details: { retryAfterSeconds: 1, causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] } });
      expect(tooLarge.body.message).toMatch(new RegExp(`^Timeout: Too large resource version: ${future}, current: \\d+$`));
    });
  });

  describe('list (4.4)', () => {
    test('unset/no limit: Most Recent; unset/limit: Most Recent paged; continuation keeps the first page\'s revision', async () => {
      await create('a'); await create('b'); await create('c');
      const mr = await t.call('GET', cms);
      expect(names(mr)).toEqual(['a', 'b', 'c']);
      const p1 = await t.call('GET', `${cms}?limit=2`);
      expect(names(p1)).toEqual(['a', 'b']);
      expect(p1.body.metadata.remainingItemCount).toBe(1);
      await t.call('DELETE', `${cms}/c`);
      await create('d');
      const p2 = await t.call('GET', `${cms}?limit=2&continue=${encodeURIComponent(p1.body.metadata.continue)}`);
      expect(names(p2)).toEqual(['c']);
      expect(p2.body.metadata.resourceVersion).toBe(p1.body.metadata.resourceVersion);
      expect(p2.body.metadata.continue).toBeUndefined();
      const p2any = await t.call('GET', `${cms}?limit=2&resourceVersion=0&continue=${encodeURIComponent(p1.body.metadata.continue)}`);
      expect(names(p2any)).toEqual(['c']);
    });

    test('"0": Any, served whole even with a limit', async () => {
      await create('a'); await create('b'); await create('c');
      // "Any" may be served before the cache saw the last write: a consistent read first brings it there.
      expect((await t.call('GET', cms)).status).toBe(200);
      const any = await t.call('GET', `${cms}?resourceVersion=0&limit=1`);
      expect(names(any)).toEqual(['a', 'b', 'c']);
      expect(any.body.metadata.continue).toBeUndefined();
      const nlt0 = await t.call('GET', `${cms}?resourceVersion=0&resourceVersionMatch=NotOlderThan&limit=1`);
      expect(nlt0.status).toBe(200);
    });

    test('other value: Not older than without a limit, Exact with a limit or resourceVersionMatch=Exact', async () => {
      const a = await create('a');
      const b = await create('b');
      await t.call('DELETE', `${cms}/a`);
      await create('c');
      const nlt = await t.call('GET', `${cms}?resourceVersion=${rvOf(b)}`);
      expect(names(nlt)).toEqual(['b', 'c']);
      expect(Number(nlt.body.metadata.resourceVersion)).toBeGreaterThanOrEqual(rvOf(b));
      const nlt2 = await t.call('GET', `${cms}?resourceVersion=${rvOf(b)}&resourceVersionMatch=NotOlderThan`);
      expect(names(nlt2)).toEqual(['b', 'c']);
      // The state exactly at b's creation: a still existed, c did not.
      const exact = await t.call('GET', `${cms}?resourceVersion=${rvOf(b)}&resourceVersionMatch=Exact`);
      expect(names(exact)).toEqual(['a', 'b']);
      expect(exact.body.metadata.resourceVersion).toBe(String(rvOf(b)));
      const exactA = await t.call('GET', `${cms}?resourceVersion=${rvOf(a)}&limit=10`);
      expect(names(exactA)).toEqual(['a']);
      expect(exactA.body.metadata.resourceVersion).toBe(String(rvOf(a)));
      const paged = await t.call('GET', `${cms}?resourceVersion=${rvOf(b)}&resourceVersionMatch=Exact&limit=1`);
      expect(names(paged)).toEqual(['a']);
      const next = await t.call('GET', `${cms}?limit=1&continue=${encodeURIComponent(paged.body.metadata.continue)}`);
      expect(names(next)).toEqual(['b']);
      expect(next.body.metadata.resourceVersion).toBe(String(rvOf(b)));
    });

    test('a future resourceVersion waits, then 504 Too large resource version', async () => {
      const a = await create('a');
      for (const q of [`resourceVersion=${rvOf(a) + 1000}`, `resourceVersion=${rvOf(a) + 1000}&resourceVersionMatch=Exact`, `resourceVersion=${rvOf(a) + 1000}&resourceVersionMatch=NotOlderThan&limit=5`]) {
        const r = await t.call('GET', `${cms}?${q}`);
        expect(r.status).toBe(504);
        expect(r.body.reason).toBe('Timeout');
        expect(r.body.message).toContain(`Too large resource version: ${rvOf(a) + 1000}`);
      }
    });

    test('every invalid cell answers kube\'s status and message', async () => {
      const a = await create('a');
      await create('a2');
      const validToken = encodeURIComponent((await t.call('GET', `${cms}?limit=1`)).body.metadata.continue);
      const cases: Array<[string, number, string]> = [
        ['resourceVersionMatch=Exact', 422, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
        ['resourceVersionMatch=Exact&limit=5', 422, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
        ['resourceVersionMatch=NotOlderThan', 422, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
        ['resourceVersion=0&resourceVersionMatch=Exact', 422, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
        ['resourceVersion=0&resourceVersionMatch=Exact&limit=5', 422, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
        // kube's storage.ValidateListOptions decodes the token before it looks at the resourceVersion beside it.
        [`resourceVersion=${rvOf(a)}&limit=1&continue=x`, 400, 'invalid continue token: continue key is not valid: illegal base64 data at input byte 0'],
        [`resourceVersion=${rvOf(a)}&limit=1&continue=${validToken}`, 400, 'specifying resource version is not allowed when using continue'],
        ['sendInitialEvents=true', 422, 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
        // kube's versioner error as storage.ValidateListOptions reports it.
        ['resourceVersion=abc', 400, 'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'],
        ['resourceVersion=18446744073709551616', 400, 'invalid resource version: resourceVersion: Invalid value: "18446744073709551616": strconv.ParseUint: parsing "18446744073709551616": value out of range'],
      ];
      for (const [q, code, message] of cases) {
        const r = await t.call('GET', `${cms}?${q}`);
        expect({ q, code: r.status, message: r.body.message }).toEqual({ q, code, message });
      }
      const both = await t.call('GET', `${cms}?resourceVersion=1&resourceVersionMatch=Exact&continue=abc`);
      expect(both.status).toBe(422);
      expect(both.body.message).toContain('resourceVersionMatch is forbidden when continue is provided');
    });

    test('after compaction: Exact at an old revision and an old continuation are 410 Expired (3.3)', async () => {
      const a = await create('a');
      await create('b'); await create('c');
      const p1 = await t.call('GET', `${cms}?limit=1`);
      for (let i = 0; i < 3; i++) await create(`z${i}`);
      const rev = await ctx.storage.currentRevision();
      await ctx.storage.compact(rev);
      t.server.compacted(rev);
      const exact = await t.call('GET', `${cms}?resourceVersion=${rvOf(a)}&resourceVersionMatch=Exact`);
      expect(exact.status).toBe(410);
      expect(exact.body).toMatchObject({ reason: 'Expired', code: 410, message: 'The resourceVersion for the provided list is too old.' });
      const cont = await t.call('GET', `${cms}?limit=1&continue=${encodeURIComponent(p1.body.metadata.continue)}`);
      expect(cont.status).toBe(410);
      expect(cont.body.reason).toBe('Expired');
      expect(cont.body.message).toMatch(/^The provided continue parameter is too old to display a consistent list result\./);
      // The token in the 410 resumes after the same key, inconsistently, at the latest revision.
      const resumed = await t.call('GET', `${cms}?limit=2&continue=${encodeURIComponent(cont.body.metadata.continue)}`);
      expect(names(resumed)).toEqual(['b', 'c']);
      // A watch from before the compaction gets the ERROR event (3.4).
      const w = openWatch(t.base, `${cms}?watch=1&resourceVersion=${rvOf(a)}`);
      const evs = await w.waitFor(1);
      expect(evs[0].type).toBe('ERROR');
      expect(evs[0].object).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 });
      expect(evs[0].object.message).toMatch(new RegExp(`^too old resource version: ${rvOf(a)} \\(\\d+\\)$`));
      await w.close();
    });
  });

  describe('watch (4.5, 6, 3.4)', () => {
    test('unset and "0": synthetic ADDED for the current state, then changes; other value: only later changes', async () => {
      const a = await create('a');
      const b = await create('b');
      for (const q of ['', '&resourceVersion=0']) {
        const w = openWatch(t.base, `${cms}?watch=1${q}`);
        const init = await w.waitFor(2);
        expect(init.map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'a'], ['ADDED', 'b']]);
        await w.close();
      }
      const fromA = openWatch(t.base, `${cms}?watch=1&resourceVersion=${rvOf(a)}`);
      const evs = await fromA.waitFor(1);
      expect(evs.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion])).toEqual([['ADDED', 'b', b.metadata.resourceVersion]]);
      await create('c');
      await t.call('DELETE', `${cms}/a`);
      const more = await fromA.waitFor(3);
      expect(more.slice(1).map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'c'], ['DELETED', 'a']]);
      expect(Number(more[2].object.metadata.resourceVersion)).toBeGreaterThan(Number(more[1].object.metadata.resourceVersion));
      await fromA.close();
    });

    test('resume after a disconnect from the last resourceVersion: no gap, no duplicate (3.4)', async () => {
      await create('a');
      const w1 = openWatch(t.base, `${cms}?watch=1`);
      await w1.waitFor(1);
      await create('b');
      const seen = await w1.waitFor(2);
      await w1.close();
      const last = seen[seen.length - 1].object.metadata.resourceVersion;
      await create('c');
      await t.call('PATCH', `${cms}/b`, { body: { data: { v: 'x' } }, contentType: 'application/merge-patch+json' });
      const w2 = openWatch(t.base, `${cms}?watch=1&resourceVersion=${last}`);
      const evs = await w2.waitFor(2);
      expect(evs.map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'c'], ['MODIFIED', 'b']]);
      await new Promise((r) => setTimeout(r, 300));
      expect(w2.events.length).toBe(2);
      await w2.close();
    });

    test('bookmarks carry only metadata.resourceVersion; sendInitialEvents ends the initial state with an annotated bookmark', async () => {
      const a = await create('a');
      const w = openWatch(t.base, `${cms}?watch=1&allowWatchBookmarks=true&resourceVersion=${rvOf(a)}`);
      const evs = await w.waitFor(1);
      expect(evs[0]).toEqual({ type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: expect.stringMatching(/^\d+$/) } } });
      expect(Number(evs[0].object.metadata.resourceVersion)).toBeGreaterThanOrEqual(rvOf(a));
      await w.close();

      await create('b');
      const wl = openWatch(t.base, `${cms}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
      const init = await wl.waitFor(3);
      expect(init.slice(0, 2).map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'a'], ['ADDED', 'b']]);
      expect(init[2]).toMatchObject({ type: 'BOOKMARK', object: { metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } } } });
      await create('c');
      const after = await wl.waitFor(4);
      expect(after.filter((e) => e.type !== 'BOOKMARK').map((e) => e.object.metadata.name)).toEqual(['a', 'b', 'c']);
      await wl.close();
    });

    test('a bookmark comes 2 s before timeoutSeconds ends the watch', async () => {
      const a = await create('a');
      // Bookmarks are otherwise a minute apart: this server is started with the default interval.
      const t2 = await startTestServer({ storage: ctx.storage, registryPrefix: ctx.prefix + 'registry' });
      try {
        await t2.call('POST', cms, { body: cm('b') });
        const w = openWatch(t2.base, `${cms}?watch=1&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=${rvOf(a)}`);
        const deadline = Date.now() + 10000;
        while (!w.ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
        expect(Number(w.events[1].object.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(w.events[0].object.metadata.resourceVersion));
        await w.close();
      } finally {
        await t2.close();
      }
    });

    test('sendInitialEvents and resourceVersionMatch combined wrongly are 422', async () => {
      const cases: Array<[string, string]> = [
        ['sendInitialEvents=true', 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
        ['resourceVersionMatch=NotOlderThan&resourceVersion=1', 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
      ];
      for (const [q, message] of cases) {
        const r = await t.call('GET', `${cms}?watch=1&${q}`);
        expect(r.status).toBe(422);
        expect(r.body.message).toBe(message);
      }
      const exact = await t.call('GET', `${cms}?watch=1&sendInitialEvents=true&resourceVersionMatch=Exact`);
      expect(exact.status).toBe(422);
      expect(exact.body.message).toContain('Unsupported value: "Exact": supported values: "NotOlderThan"');
    });

    test('sendInitialEvents from a future resourceVersion: an ERROR event with the 504 Too large resource version', async () => {
      const a = await create('a');
      const w = openWatch(t.base, `${cms}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=${rvOf(a) + 1000}`);
      const evs = await w.waitFor(1);
      expect(evs[0].type).toBe('ERROR');
      expect(evs[0].object).toMatchObject({ kind: 'Status', reason: 'Timeout', code: 504, details: { causes: [{ reason: 'ResourceVersionTooLarge' }] } });
      expect(evs[0].object.message).toContain(`Too large resource version: ${rvOf(a) + 1000}`);
      await w.close();
    });

    test('a watch from a future resourceVersion stays silent until changes pass it', async () => {
      const a = await create('a');
      const w = openWatch(t.base, `${cms}?watch=1&resourceVersion=${rvOf(a) + 2}`);
      await new Promise((r) => setTimeout(r, 200));
      await create('b'); await create('c'); await create('d');
      const evs = await w.waitFor(1);
      expect(evs.map((e) => e.object.metadata.name)).toEqual(['d']);
      await w.close();
    });

    test('label selectors: entering is ADDED, leaving is DELETED; timeoutSeconds ends the stream', async () => {
      await create('x', { app: 'db' });
      const w = openWatch(t.base, `${cms}?watch=1&labelSelector=app%3Dweb&timeoutSeconds=2`);
      await t.call('PATCH', `${cms}/x`, { body: { metadata: { labels: { app: 'web' } } }, contentType: 'application/merge-patch+json' });
      await t.call('PATCH', `${cms}/x`, { body: { metadata: { labels: { app: 'db' } } }, contentType: 'application/merge-patch+json' });
      const evs = await w.waitFor(2);
      expect(evs.map((e) => [e.type, e.object.metadata.labels.app])).toEqual([['ADDED', 'web'], ['DELETED', 'web']]);
      const deadline = Date.now() + 10000;
      while (!w.ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(w.ended).toBe(true);
      await w.close();
    });

    test('a watch of one object by the legacy /watch/ path', async () => {
      await create('one'); await create('two');
      const w = openWatch(t.base, '/api/v1/watch/namespaces/default/configmaps/two');
      const evs = await w.waitFor(1);
      expect(evs.map((e) => e.object.metadata.name)).toEqual(['two']);
      await t.call('PATCH', `${cms}/one`, { body: { data: { v: 'z' } }, contentType: 'application/merge-patch+json' });
      await t.call('PATCH', `${cms}/two`, { body: { data: { v: 'z' } }, contentType: 'application/merge-patch+json' });
      const more = await w.waitFor(2);
      expect(more[1]).toMatchObject({ type: 'MODIFIED', object: { metadata: { name: 'two' } } });
      await w.close();
    });

    test('a watch of one object by the /watch/ path refuses a field selector that does not name it', async () => {
      await create('one'); await create('two');
      for (const fs of ['metadata.name%3Dtwo', 'metadata.namespace%3Ddefault']) {
        const r = await t.call('GET', `/api/v1/watch/namespaces/default/configmaps/one?fieldSelector=${fs}`);
        expect({ status: r.status, reason: r.body.reason, message: r.body.message }).toEqual({ status: 400, reason: 'BadRequest', message: "fieldSelector metadata.name doesn't match requested name" });
      }
      // An unsupported field label is refused first, by the conversion.
      const bad = await t.call('GET', '/api/v1/watch/namespaces/default/configmaps/one?fieldSelector=spec.x%3Dy');
      expect(bad.body.message).toBe('"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"');
      const w = openWatch(t.base, '/api/v1/watch/namespaces/default/configmaps/one?fieldSelector=metadata.name%3Done,metadata.namespace%3Ddefault');
      expect((await w.waitFor(1)).map((e) => e.object.metadata.name)).toEqual(['one']);
      await w.close();
    });

    test('a watch from "" or "0" with bookmarks is a watch-list by default: its initial state ends with the annotated bookmark', async () => {
      // metainternalversion.SetListOptionsDefaults (WatchList on in 1.35): sendInitialEvents=true, NotOlderThan.
      await create('a');
      for (const q of ['', '&resourceVersion=0']) {
        const w = openWatch(t.base, `${cms}?watch=1&allowWatchBookmarks=true${q}`);
        const evs = await w.waitFor(2);
        expect(evs[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'a' } } });
        expect(evs[1]).toMatchObject({ type: 'BOOKMARK', object: { metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } } } });
        await w.close();
      }
      // The legacy /watch/ path without ?watch=true is not defaulted (ListResource's forceWatch).
      const legacy = openWatch(t.base, `/api/v1/watch/namespaces/default/configmaps?allowWatchBookmarks=true&timeoutSeconds=1`);
      const deadline = Date.now() + 10000;
      while (!legacy.ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(legacy.events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'a' } } });
      // (this server's bookmarks come every 200 ms: none is the initial-events-end one)
      expect(legacy.events.filter((e) => e.object.metadata.annotations?.['k8s.io/initial-events-end'])).toEqual([]);
      await legacy.close();
    });

    test('sendInitialEvents=false from "" or "0" starts from now, without initial events', async () => {
      await create('a');
      for (const q of ['', '&resourceVersion=0']) {
        const w = openWatch(t.base, `${cms}?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan${q}`);
        await new Promise((r) => setTimeout(r, 100));
        const b = await create(`b${q.length}`);
        const evs = await w.waitFor(1);
        expect(evs.map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', b.metadata.name]]);
        await w.close();
      }
    });

    test('a legacy /watch/ path without ?watch=true validates its options as a list', async () => {
      const r = await t.call('GET', '/api/v1/watch/namespaces/default/configmaps?sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=1');
      expect(r.status).toBe(422);
      expect(r.body.message).toBe('ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list');
      // NotOlderThan without sendInitialEvents is a list's option, so allowed there.
      const a = await create('a');
      const w = openWatch(t.base, `/api/v1/watch/namespaces/default/configmaps?resourceVersionMatch=NotOlderThan&resourceVersion=${rvOf(a)}`);
      const b = await create('b');
      expect((await w.waitFor(1)).map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion])).toEqual([['ADDED', 'b', b.metadata.resourceVersion]]);
      await w.close();
    });

    test('timeoutSeconds=0 and a timeout past 2^31 ms leave the watch open', async () => {
      await create('a');
      for (const q of ['timeoutSeconds=0', 'timeoutSeconds=3000000']) {
        const w = openWatch(t.base, `${cms}?watch=1&${q}`);
        await w.waitFor(1);
        await new Promise((r) => setTimeout(r, 300));
        expect(w.ended).toBe(false);
        await w.close();
      }
    });
  });
});
