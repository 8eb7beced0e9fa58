/** watch: a chunked stream of {type, object} JSON documents, one per line. */
import { parseListOptions } from '../registry/listoptions.js';
import { startWatch, type WatchEvent } from '../registry/watch.js';
import { parseIncludeObject, partialObjectMetadata, toTable } from '../table.js';
import type { KubeObject } from '../registry/types.js';
import type { RequestScope } from './scope.js';

/** kube's default: a random duration between the minimum request timeout and twice it. */
const minRequestTimeoutSeconds = 1800;

export async function watchResource(s: RequestScope): Promise<void> {
  const opts = parseListOptions(s.query, true);
  const include = parseIncludeObject(s.query.get('includeObject'));
  let sentHeaders = false;
  const represent = (ev: WatchEvent): unknown => {
    if (ev.type === 'ERROR' || ev.type === 'BOOKMARK') return ev.object;
    const obj = ev.object as KubeObject;
    if (s.negotiated.as === 'Table') {
      // Column definitions go with the first event only, as kube sends them.
      const table = toTable(s.def, [obj], { resourceVersion: obj.metadata.resourceVersion }, include, !sentHeaders);
      sentHeaders = true;
      return table;
    }
    if (s.negotiated.as === 'PartialObjectMetadata') return partialObjectMetadata(obj);
    return obj;
  };

  const { res, req } = s;
  res.status(200);
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Cache-Control', 'no-cache, private');
  res.setHeader('Transfer-Encoding', 'chunked');
  res.flushHeaders();

  let ended = false;
  let timer: NodeJS.Timeout | undefined;
  let active: { stop(): void } | undefined;
  const finish = () => {
    if (ended) return;
    ended = true;
    if (timer) clearTimeout(timer);
    active?.stop();
    res.end();
  };
  req.on('close', finish);
  res.on('close', finish);

  const timeoutSeconds = opts.timeoutSeconds ?? Math.floor(minRequestTimeoutSeconds * (1 + Math.random()));
  timer = setTimeout(finish, timeoutSeconds * 1000);

  active = await startWatch(s.store, s.info.namespace, s.info.name, opts, {
    send(ev) {
      if (ended) return;
      res.write(JSON.stringify({ type: ev.type, object: represent(ev) }) + '\n');
    },
    end: finish,
  });
  if (ended) active.stop();
}
