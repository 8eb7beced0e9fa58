import { createStorage, EmbeddedStorage } from './dist/index.js';
import { startEtcd, WatchRecorder } from './dist/testing/index.js';
const t0 = Date.now();
const srv = await startEtcd();
console.log('etcd up in', Date.now() - t0, srv.endpoints);
for (const s of [new EmbeddedStorage(':memory:'), await createStorage({ backend: 'etcd', endpoints: srv.endpoints })]) {
  console.log(s.name, 'rev', await s.currentRevision(), s.serverVersion, s.supportsProgressRequests);
  const a = await s.create('/registry/a', Buffer.from('1'));
  console.log(a);
  try { await s.create('/registry/a', Buffer.from('x')); } catch (e) { console.log(e.code, e.details.current?.modRevision); }
  const a2 = await s.update('/registry/a', Buffer.from('2'), a.modRevision);
  console.log(a2);
  try { await s.update('/registry/a', Buffer.from('3'), a.modRevision); } catch (e) { console.log(e.code, e.details.current?.modRevision); }
  const rec = new WatchRecorder();
  const h = await s.watch('/registry/', a.modRevision, rec, { prevKv: true, progressNotify: true });
  const d = await s.delete('/registry/a', a2.modRevision);
  console.log(d);
  await rec.untilKeyAt('/registry/a', d.revision);
  console.log(rec.received);
  h.requestProgress();
  await rec.untilProgress(d.revision);
  console.log('progress', rec.progressed);
  console.log(await s.range('/registry/', { prefix: true, revision: a2.modRevision }));
  try { await s.range('/registry/', { prefix: true, revision: 1000 }); } catch (e) { console.log(e.code, e.message); }
  await s.compact(a2.modRevision);
  console.log('compacted', await s.compactedRevision());
  try { await s.range('/registry/', { prefix: true, revision: a.modRevision }); } catch (e) { console.log(e.code, e.message); }
  const rec2 = new WatchRecorder();
  await s.watch('/registry/', a.modRevision, rec2);
  console.log('watch compacted', (await rec2.untilError()).message);
  h.close();
  await s.close();
}
await srv.stop();
const t1 = Date.now();
try { await createStorage({ backend: 'etcd', endpoints: ['http://127.0.0.1:1'] }); } catch (e) { console.log(e.code, e.message, Date.now() - t1, 'ms'); }
try { await createStorage({ backend: 'etcd', endpoints: ['http://10.255.255.1:2379'] }); } catch (e) { console.log(e.code, e.message, Date.now() - t1, 'ms'); }
