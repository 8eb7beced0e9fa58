/**
 * No acknowledged write lost, none applied twice, none made by nobody: for every key the
 * writers wrote, the store's events on it are exactly their acknowledged writes in order,
 * each carrying the object the server returned (a delete: a DELETED at that point). Keys
 * in `namespaces` with events but no writer are reported too. With every write acknowledged
 * (writers retry until they are), the key's last state is then the last acknowledged write's.
 */
import { describeEvent, keyOf, sameObject, type Ev } from '../watchcheck.js';
import type { Op } from './writer.js';

export function checkAcknowledgedWrites(acked: Op[], events: Ev[], namespaces: string[]): string[] {
  const problems: string[] = [];
  const byKey = new Map<string, Op[]>();
  for (const op of acked) byKey.set(op.key, [...(byKey.get(op.key) ?? []), op]);
  const eventsByKey = new Map<string, Ev[]>();
  for (const e of events) eventsByKey.set(keyOf(e.obj), [...(eventsByKey.get(keyOf(e.obj)) ?? []), e]);
  for (const [key, keyOps] of byKey) {
    keyOps.sort((a, b) => a.seq - b.seq); // one writer per key: its sequence is the order it wrote in
    const got = eventsByKey.get(key) ?? [];
    keyOps.forEach((op, i) => {
      const e = got[i];
      const type = op.kind === 'create' ? 'ADDED' : op.kind === 'update' ? 'MODIFIED' : 'DELETED';
      if (!e || e.type !== type || (op.result && !sameObject(e.obj, op.result))) {
        problems.push(`${key}: acknowledged ${op.kind} #${op.seq}${op.result ? `@${op.result.resourceVersion}` : ''} is not the key's event ${i} in etcd (${describeEvent(e)})`);
      }
    });
    for (const e of got.slice(keyOps.length)) problems.push(`${key}: etcd has ${describeEvent(e)}, which no acknowledged write made`);
  }
  for (const [k, evs] of eventsByKey) {
    if (!byKey.has(k) && namespaces.includes(k.split('/')[0])) problems.push(`${k}: events in etcd (${evs.map(describeEvent).join(', ')}) that no writer made`);
  }
  return problems;
}
