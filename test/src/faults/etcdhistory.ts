/**
 * The store's history read from etcd itself (its JSON gateway, /v3/kv/range and /v3/watch),
 * not through Windlass: what the watchers are compared with and where acknowledged writes
 * must be. Windlass keeps objects as JSON under /registry/<resource>/<namespace>/<name> and
 * a resourceVersion is the etcd revision that wrote it (mod_revision; a delete's own
 * revision for DELETED, with the previous value as the object, as kube's watch does).
 */
import { lineReader, objectState, type ObjectState } from '../kubehttp.js';
import type { Ev } from '../watchcheck.js';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
/** The end of the range of keys starting with `prefix` (etcd's clientv3.GetPrefixRangeEnd). */
function prefixEnd(prefix: string): string {
  const buf = Buffer.from(prefix, 'utf8');
  for (let i = buf.length - 1; i >= 0; i--) {
    if (buf[i] < 0xff) {
      buf[i]++;
      return buf.subarray(0, i + 1).toString('base64');
    }
  }
  return Buffer.from([0]).toString('base64');
}

interface Kv {
  key: string;
  value?: string;
  mod_revision: string;
  create_revision?: string;
}

function stateOf(value: string | undefined, revision: string): ObjectState {
  const obj = JSON.parse(Buffer.from(value ?? '', 'base64').toString('utf8'));
  return { ...objectState(obj), resourceVersion: revision };
}

async function post(url: string, path: string, body: unknown, timeoutMs = 5000): Promise<any> {
  const res = await fetch(`${url}${path}`, { method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`etcd ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Every object under `prefix` now, and the revision that state is at. */
export async function etcdSnapshot(url: string, prefix: string): Promise<{ revision: string; items: ObjectState[] }> {
  const r = await post(url, '/v3/kv/range', { key: b64(prefix), range_end: prefixEnd(prefix) });
  return { revision: String(r.header.revision), items: ((r.kvs ?? []) as Kv[]).map((kv) => stateOf(kv.value, kv.mod_revision)) };
}

/** The events under `prefix` after revision `after`, up to and including the one at revision `until`. */
export async function etcdHistory(url: string, prefix: string, after: string, until: string, timeoutMs = 60000): Promise<Ev[]> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs);
  const events: Ev[] = [];
  let done = false;
  let problem: string | undefined;
  try {
    const res = await fetch(`${url}/v3/watch`, {
      method: 'POST', signal: ctl.signal,
      body: JSON.stringify({ create_request: { key: b64(prefix), range_end: prefixEnd(prefix), start_revision: String(BigInt(after) + 1n), prev_kv: true } }),
    });
    if (!res.ok || !res.body) throw new Error(`etcd watch: ${res.status}`);
    const lines = lineReader((line) => {
      const msg = JSON.parse(line);
      if (msg.error) problem = `etcd watch error: ${JSON.stringify(msg.error)}`;
      const r = msg.result ?? {};
      if (r.canceled || r.compact_revision) problem = `etcd watch canceled: ${r.cancel_reason ?? `compacted to ${r.compact_revision}`}`;
      for (const e of (r.events ?? []) as Array<{ type?: string; kv: Kv; prev_kv?: Kv }>) {
        if (e.type === 'DELETE') {
          if (!e.prev_kv) problem = `DELETE of ${Buffer.from(e.kv.key, 'base64')} at ${e.kv.mod_revision} without its previous value`;
          else events.push({ type: 'DELETED', obj: stateOf(e.prev_kv.value, e.kv.mod_revision) });
        } else {
          events.push({ type: e.kv.create_revision === e.kv.mod_revision ? 'ADDED' : 'MODIFIED', obj: stateOf(e.kv.value, e.kv.mod_revision) });
        }
        if (BigInt(e.kv.mod_revision) >= BigInt(until)) done = true;
      }
      if (done || problem) return false;
    });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    while (!done && !problem) {
      const { value, done: eof } = await reader.read();
      if (eof) break;
      lines.push(decoder.decode(value, { stream: true }));
    }
    ctl.abort();
  } catch (err) {
    if (!done && !problem) throw new Error(`reading etcd's history from ${url}: ${String(err)} (${events.length} events read)`);
  } finally {
    clearTimeout(timer);
  }
  if (problem) throw new Error(problem);
  if (!done) throw new Error(`etcd's history from ${url} ended before revision ${until} (${events.length} events read)`);
  return events;
}

/** The member that is the raft leader, by asking each for its status. */
export async function etcdLeader(urls: string[]): Promise<string | undefined> {
  const statuses = await Promise.all(urls.map(async (url) => {
    try {
      const s = await post(url, '/v3/maintenance/status', {}, 1000);
      return { url, id: String(s.header.member_id), leader: String(s.leader) };
    } catch {
      return undefined;
    }
  }));
  const known = statuses.filter((s) => s !== undefined);
  const leaderId = known.find((s) => s.leader && s.leader !== '0')?.leader;
  return known.find((s) => s.id === leaderId)?.url;
}
