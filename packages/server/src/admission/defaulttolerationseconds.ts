/**
 * DefaultTolerationSeconds admission (plugin/pkg/admission/defaulttolerationseconds): a pod
 * that does not tolerate the not-ready and unreachable NoExecute taints tolerates them for
 * 300 seconds, so it is evicted five minutes after its node fails.
 */
import type { AdmissionPlugin } from '../registry/types.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export const defaultNotReadyTolerationSeconds = 300;
export const defaultUnreachableTolerationSeconds = 300;

function tolerates(tolerations: Json[], key: string): boolean {
  return tolerations.some((t) => (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect));
}

export const defaultTolerationSecondsAdmission: AdmissionPlugin = {
  name: 'DefaultTolerationSeconds',
  mutate(attrs) {
    if (attrs.subresource !== '') return;
    const spec = (isObject(attrs.obj.spec) ? attrs.obj.spec : (attrs.obj.spec = {})) as Json;
    const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations.filter(isObject) : [];
    const added: Json[] = [];
    if (!tolerates(tolerations, 'node.kubernetes.io/not-ready')) {
      added.push({ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: defaultNotReadyTolerationSeconds });
    }
    if (!tolerates(tolerations, 'node.kubernetes.io/unreachable')) {
      added.push({ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: defaultUnreachableTolerationSeconds });
    }
    if (added.length > 0) spec.tolerations = [...(Array.isArray(spec.tolerations) ? spec.tolerations : []), ...added];
  },
};
