/**
 * Field label conversion: which field selector labels a served kind accepts, what it renames
 * them to and how it refuses the rest, as the conversion funcs kube 1.35 registers with
 * AddFieldLabelConversionFunc (pkg/apis/<group>/<version>/conversion.go). A built-in kind
 * without one gets runtime.DefaultMetaV1FieldSelectorConversion — apps/v1 registers none, so
 * even ReplicaSet's `status.replicas`, which its registry could select, is refused there; a
 * custom resource gets apiextensions' conversion over its selectableFields.
 */
import { builtinResourceTable } from '@windlass/schemas';
import { goQuote } from '@windlass/machinery';
import type { ResourceDefinition } from './types.js';

/** A label's canonical name, or the error kube answers 400 with. */
export type FieldLabelConversion = ((label: string) => string | { error: string }) & { readonly labels?: readonly string[] };

const notSupported = (label: string) => ({ error: `field label not supported: ${label}` });

/** A conversion accepting `labels` as they are (plus renames), refusing others with `refuse`. */
function accepting(labels: string[], renames: Record<string, string> = {}, refuse: (label: string) => { error: string } = notSupported): FieldLabelConversion {
  const map = new Map<string, string>(labels.map((l) => [l, l]));
  for (const [from, to] of Object.entries(renames)) map.set(from, to);
  return Object.assign((label: string) => map.get(label) ?? refuse(label), { labels: [...new Set(map.values())] });
}

const meta = ['metadata.name', 'metadata.namespace'];

const eventLabels = [
  'involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid',
  'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath',
  'reason', 'reportingComponent', 'source', 'type', ...meta,
];

/** Keyed by `group/version/Kind` of the served version. */
const conversions: Record<string, FieldLabelConversion> = {
  '/v1/Pod': accepting(
    [...meta, 'spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.podIPs', 'status.nominatedNodeName'],
    // Old v1 clients send spec.host.
    { 'spec.host': 'spec.nodeName' },
  ),
  '/v1/Node': accepting(['metadata.name', 'spec.unschedulable']),
  '/v1/ReplicationController': accepting([...meta, 'status.replicas']),
  '/v1/Event': accepting(eventLabels),
  '/v1/Namespace': accepting(['status.phase', 'metadata.name']),
  '/v1/Secret': accepting(['type', ...meta]),
  '/v1/Service': accepting([...meta, 'spec.clusterIP', 'spec.type']),
  'batch/v1/Job': accepting([...meta, 'status.successful'], {}, (label) => ({ error: `field label ${goQuote(label)} not supported for Job` })),
  'certificates.k8s.io/v1/CertificateSigningRequest': accepting(['metadata.name', 'spec.signerName']),
  'events.k8s.io/v1/Event': accepting(['reason', 'source', 'type', ...meta], {
    'regarding.kind': 'involvedObject.kind',
    'regarding.namespace': 'involvedObject.namespace',
    'regarding.name': 'involvedObject.name',
    'regarding.uid': 'involvedObject.uid',
    'regarding.apiVersion': 'involvedObject.apiVersion',
    'regarding.resourceVersion': 'involvedObject.resourceVersion',
    'regarding.fieldPath': 'involvedObject.fieldPath',
    reportingController: 'reportingComponent',
  }),
  'resource.k8s.io/v1/ResourceSlice': accepting(['metadata.name', 'spec.nodeName', 'spec.driver'], {}, (label) => ({
    error: `field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: ${label}`,
  })),
};

/** runtime.DefaultMetaV1FieldSelectorConversion. */
const defaultConversion = accepting(meta, {}, (label) => ({
  error: `${goQuote(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`,
}));

let builtins: Set<string> | undefined;

function isBuiltin(def: ResourceDefinition): boolean {
  builtins ??= new Set(builtinResourceTable.map((r) => `${r.group}/${r.version}/${r.kind}`));
  return builtins.has(`${def.group}/${def.version}/${def.kind}`);
}

const customConversions = new WeakMap<ResourceDefinition, FieldLabelConversion>();

/** The field label conversion of the version a request addressed. */
export function fieldLabelConversion(def: ResourceDefinition): FieldLabelConversion {
  const known = conversions[`${def.group}/${def.version}/${def.kind}`];
  if (known) return known;
  if (isBuiltin(def)) return defaultConversion;
  // apiextensions' crConverter: metadata.name, metadata.namespace when namespaced, the selectableFields.
  let c = customConversions.get(def);
  if (!c) {
    c = accepting(['metadata.name', ...(def.namespaced ? ['metadata.namespace'] : []), ...Object.keys(def.selectableFields ?? {})]);
    customConversions.set(def, c);
  }
  return c;
}
