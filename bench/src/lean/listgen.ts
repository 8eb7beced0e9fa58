/**
 * LIST load generator (a child process): one client, one list at a time. Per mode an untimed
 * pass parses the response(s) and checks the item count, then warm-up lists, then a window of
 * `iterations` lists whose bodies are received as bytes (a paged list only reads its continue
 * token from the head of each page). Modes: consistent (no resourceVersion), rv0
 * (resourceVersion=0), paged (limit=page, then every continue token; the whole traversal is one list),
 * rv0-protobuf (resourceVersion=0 asking for application/vnd.kubernetes.protobuf, as client-go's
 * typed clients do; its check pass counts the items of the same list in JSON).
 */
import type https from 'node:https';
import { performance } from 'node:perf_hooks';
import { childMain } from './ipc.js';
import { agentFor, expectStatus, Recorder, send, type Latency, type Target } from './http.js';

export type ListMode = 'consistent' | 'rv0' | 'paged' | 'rv0-protobuf';

const protobuf = 'application/vnd.kubernetes.protobuf';

export interface ListSpec {
  target: Target;
  path: string;
  modes: ListMode[];
  iterations: number;
  warm: number;
  page: number;
  expectItems: number;
}

export interface ListResult {
  lists: number;
  latency: Latency;
  /** Response bytes and requests of one list (a paged traversal: all its pages). */
  bytes: number;
  requests: number;
}

const CONTINUE = /"continue":"([^"]*)"/;

async function listOnce(agent: https.Agent, spec: ListSpec, mode: ListMode, parse: boolean): Promise<{ bytes: number; requests: number; items: number }> {
  let bytes = 0;
  let requests = 0;
  let items = 0;
  let cont: string | undefined;
  do {
    const q = mode === 'rv0' || mode === 'rv0-protobuf' ? '?resourceVersion=0' : mode === 'paged' ? `?limit=${spec.page}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}` : '';
    const r = await send(agent, spec.target, 'GET', spec.path + q, undefined, undefined, mode === 'rv0-protobuf' && !parse ? protobuf : 'application/json');
    requests++;
    expectStatus(`LIST ${mode}`, r, 200);
    bytes += r.body.length;
    if (parse) {
      const list = JSON.parse(r.body.toString('utf8')) as { items: unknown[]; metadata: { continue?: string } };
      items += list.items.length;
      cont = mode === 'paged' ? list.metadata.continue || undefined : undefined;
    } else if (mode === 'paged') {
      // metadata comes before items: the token is in the first bytes.
      cont = CONTINUE.exec(r.body.toString('utf8', 0, Math.min(r.body.length, 4096)))?.[1] || undefined;
    }
  } while (cont);
  return { bytes, requests, items };
}

childMain<ListSpec>(async (spec, window) => {
  const agent = agentFor(spec.target, 1);
  for (const mode of spec.modes) {
    const check = await listOnce(agent, spec, mode, true);
    if (check.items !== spec.expectItems) throw new Error(`LIST ${mode}: ${check.items} items, expected ${spec.expectItems}`);
    for (let i = 0; i < spec.warm; i++) await listOnce(agent, spec, mode, false);
    await window(mode, async (): Promise<ListResult> => {
      const rec = new Recorder();
      let last = { bytes: 0, requests: 0 };
      for (let i = 0; i < spec.iterations; i++) {
        const t = performance.now();
        last = await listOnce(agent, spec, mode, false);
        rec.add(performance.now() - t);
      }
      return { lists: spec.iterations, latency: rec.summary(), ...last };
    });
  }
  agent.destroy();
});
