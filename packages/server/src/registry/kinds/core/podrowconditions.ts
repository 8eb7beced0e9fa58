/**
 * The conditions kube's pod printer puts on a pod's table row (printPod's podSuccessConditions
 * and podFailedConditions): a pod that has finished is Completed, which clients use to tell
 * finished pods from running ones without reading the status column.
 */
import type { KubeObject, TableRowCondition } from '../../types.js';

const succeeded: TableRowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
const failed: TableRowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];

export function podRowConditions(pod: KubeObject): TableRowCondition[] {
  const phase = (pod.status as { phase?: unknown } | undefined)?.phase;
  return phase === 'Succeeded' ? succeeded : phase === 'Failed' ? failed : [];
}
