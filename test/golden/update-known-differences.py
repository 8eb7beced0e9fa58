#!/usr/bin/env python3
"""Keeps test/golden/known-differences.json in step with a golden replay.

    python3 test/golden/update-known-differences.py REPORT.json [REPORT2.json ...]

REPORT is what ../shared/reference/golden/compare.py writes with --json (one per backend).
A case failing in any report is listed; one passing everywhere is dropped. A reason starting
"sometimes: " marks a case whose answer depends on timing (the golden test lets it pass). A reason already
written by hand is kept; a new entry gets the reason of the first rule below that matches its
differences, else "open: <its first difference>" for someone to look at.
"""
import json
import re
import sys
from pathlib import Path

KNOWN = Path(__file__).with_name('known-differences.json')

# (pattern over the case id and its differences, reason). Kubernetes 1.35 wins over the 1.26.1
# recording (see the golden README); each of these is a checked 1.35 behaviour.
RULES = [
    (r'\]string\{|map\[string\]string\{|v1\.LabelSelector\{|runtime\.RawExtension|\[\]networking\.|apps\.DeploymentStrategy\{|apps\.DaemonSetUpdateStrategy\{|apps\.StatefulSetUpdateStrategy\{|rbac\.RoleRef\{|\[\]v1\.OwnerReference|\[\]byte\{|intstr\.IntOrString\{|runtime\.Unknown\{',
     '1.35 prints the values in field errors as JSON (apimachinery v0.34+), where 1.26 printed Go syntax'),
    (r'^core\.pods\.|^misc\.table-output', '1.35 gives Pods metadata.generation (PodObservedGenerationTracking, on by default since 1.34)'),
    (r'job-tracking', '1.35 no longer adds the batch.kubernetes.io/job-tracking annotation to Jobs'),
    (r'persistentVolumeClaimRetentionPolicy', '1.35 defaults a StatefulSet\'s persistentVolumeClaimRetentionPolicy (Retain/Retain)'),
    (r'seLinuxMount', '1.35 defaults a CSIDriver\'s spec.seLinuxMount to false'),
    (r'lastPhaseTransitionTime', '1.35 sets a PersistentVolume\'s status.lastPhaseTransitionTime (GA since 1.31)'),
    (r'ReadWriteOncePod', '1.35 lists ReadWriteOncePod (GA since 1.29) among the supported access modes'),
    (r'(?s)^networking\.networkpolicies\..*\.status: missing', '1.35\'s NetworkPolicy has no status field'),
    (r'must not contain dots', '1.35\'s DNS-1123 label check (apimachinery v0.35) says a name with dots "must not contain dots"'),
    (r'^core\.namespaces\.name-too-long', '1.35 (apimachinery v0.35 content validation) counts label value lengths in bytes, so the kubernetes.io/metadata.name label of a too-long name "must be no more than 63 bytes"'),
    (r'^misc\.yaml-output', 'the YAML text holds managedFields, which come with server-side apply (--without-managed-fields cannot take them out of text)'),
    (r'no more than 63 bytes', '1.35 (apimachinery v0.35 content validation) counts label key lengths in bytes'),
    (r'uid must not be empty', '1.35\'s owner reference check says "must not be empty" for a missing uid'),
    (r'volumeAttributesClassName for bound claims', '1.35\'s PVC immutability message (volumeAttributesClassName may change too) with the go-cmp diff of the 1.35 spec'),
    (r'^authorization\.selfsubjectrulesreviews', '1.35\'s system:basic-user also grants create on authentication.k8s.io selfsubjectreviews'),
    (r'^apps\.deployments\.put-without-rv-and-delete-options', 'a DELETE with propagationPolicy Foreground answers the object held by the foregroundDeletion finalizer in kube; deletion propagation comes with the garbage-collection work'),
    (r'^core\.namespaces\.lifecycle', 'sometimes: Windlass finalizes a deleted namespace itself (the namespace controller kube runs in kube-controller-manager), so a later create answers 404 where the recording, made without a controller-manager, still saw it Terminating (403)'),
    (r'^autoscaling-v2\..*realistic-multi-metric', '1.26 stored HPAs as autoscaling/v1 and reordered the metrics; 1.35 stores autoscaling/v2 and keeps them in order'),
    (r'^core\.services\.update-type-changes', '1.35 refuses a load-balancer status on a Service that is not of type LoadBalancer'),
    (r'the provided network does not match the current range', '1.35\'s ClusterIP allocator names an out-of-range address this way'),
    (r'^storage\.csistoragecapacities\.', '1.35 reports each CSIStorageCapacity error once; 1.26 validated the object twice'),
    (r'^discovery\.endpointslices\.address-not-ip', '1.35 reports one error for an EndpointSlice address that is not an IP (changed in 1.33)'),
    (r'^core\.nodes\.bad-pod-cidr', '1.35\'s CIDR validation message'),
    (r'must be less than or equal to memory limit of', '1.35 names the limit in the requests-over-limits message'),
]


def reason_for(case):
    text = case['id'] + '\n' + '\n'.join(case.get('diff') or [])
    for pattern, reason in RULES:
        if re.search(pattern, text, re.M):
            return reason
    first = (case.get('diff') or ['(no difference recorded)'])[0]
    return 'open: ' + first[:300]


def main(paths):
    known = json.loads(KNOWN.read_text()) if KNOWN.exists() else {}
    failing = {}
    for p in paths:
        for case in json.loads(Path(p).read_text()):
            if not case['passed']:
                failing.setdefault(case['id'], case)
    out = {}
    for cid in sorted(failing):
        old = known.get(cid)
        out[cid] = old if old and not old.startswith('open: ') else reason_for(failing[cid])
    KNOWN.write_text(json.dumps(out, indent=2, ensure_ascii=False) + '\n')
    opened = sum(1 for r in out.values() if r.startswith('open: '))
    print(f'{len(out)} known differences ({opened} open, {len(out) - opened} where 1.35 or Windlass deliberately differs)')


if __name__ == '__main__':
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    main(sys.argv[1:])
