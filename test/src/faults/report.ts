/** A fault run's report as text, for the bench runner's output and RESULTS.md. */
import type { FaultRunReport } from './run.js';

export function formatReport(r: FaultRunReport, title: string): string {
  const lines = [
    `${title}: ${r.ok ? 'PASS' : 'FAIL'} in ${r.durationSeconds} s`,
    `  faults: ${r.faults.map((f) => `${f.fault} ${f.target} at ${f.at} s`).join('; ')}`,
    `  history: ${r.historyEvents} events in etcd; ${r.watchers} watchers, ${r.watchRequests} watch requests, ${r.relists} relists, ${r.eventsChecked} events delivered and checked`,
    `  writes acknowledged: ${r.writesAcknowledged} (${Object.entries(r.writesByKind).map(([k, n]) => `${n} ${k}`).join(', ')}; ${r.writesRetried} needed a retry)`,
    `  seen by clients: ${Object.entries(r.clientErrors).map(([k, n]) => `${k} ×${n}`).join('; ') || 'nothing'}`,
  ];
  for (const f of r.faults) {
    if (f.restartToReadyMs !== undefined) lines.push(`  ${f.target}: restart to ready ${f.restartToReadyMs} ms, kill to back in rotation ${f.killToRotationMs} ms (1 s down on purpose)`);
    if (f.firstWriteAfterKillMs) lines.push(`  ${f.target} (${f.fault}): a leader among the others after ${f.leaderAfterKillMs} ms; first write acknowledged after the kill ${Object.entries(f.firstWriteAfterKillMs).map(([k, ms]) => `${k} ${ms} ms`).join(', ')}; member restart to healthy ${f.memberRestartToHealthyMs} ms`);
  }
  for (const p of r.problems) lines.push(`  PROBLEM: ${p}`);
  return lines.join('\n');
}
