/**
 * kube's ScaleHandler (apimachinery pkg/util/managedfields/scalehandler.go): an apply to the
 * `scale` subresource runs the field manager on the autoscaling/v1 Scale, whose only field is
 * `spec.replicas`. The parent's entries are translated to the Scale's before (who owns the
 * replicas) and back after (who owns them now), so conflicts name the parent's managers.
 */
import { FieldSet, makePath, type Path } from '@windlass/patch';
import { decodeManagedFields, emptyManaged, encodeManagedFields, type ManagedFieldsEntry } from './managedfields.js';

const scaleGroupVersion = 'autoscaling/v1';
const replicasPathInScale = makePath('spec', 'replicas');

export class ScaleHandler {
  /**
   * `parentGroupVersion` is the version the parent is served in, `replicasPath` where that
   * version keeps the replicas. Entries of other versions are kept as they are: kube maps every
   * version of the kind it knows, and Windlass serves one.
   */
  constructor(
    private readonly parentEntries: unknown,
    private readonly parentGroupVersion: string,
    private readonly replicasPath: Path,
  ) {}

  /** ToSubresource: the parent's managers of the replicas, as owners of the Scale's, with their times. */
  toSubresource(): ManagedFieldsEntry[] | undefined {
    const parent = decodeManagedFields(this.parentEntries);
    const out = emptyManaged();
    for (const [id, vs] of parent.fields) {
      if (vs.apiVersion !== this.parentGroupVersion || !vs.set.has(this.replicasPath)) continue;
      out.fields.set(id, { set: FieldSet.of(replicasPathInScale), apiVersion: scaleGroupVersion, applied: vs.applied });
      out.times.set(id, parent.times.get(id));
    }
    return encodeManagedFields(out);
  }

  /**
   * ToParent: a parent manager the Scale's entries no longer list loses the replicas (and its
   * entry, if that was all it had); the Scale's managers of the replicas are added with the
   * parent's version and the time the parent had for them, which a new one has not.
   */
  toParent(scaleEntries: unknown): ManagedFieldsEntry[] | undefined {
    const parent = decodeManagedFields(this.parentEntries);
    const scaleFields = new Map(decodeManagedFields(scaleEntries).fields);
    const out = emptyManaged();
    const replicas = FieldSet.of(this.replicasPath);
    for (const [id, vs] of parent.fields) {
      if (vs.apiVersion !== this.parentGroupVersion || !vs.set.has(this.replicasPath)) {
        out.fields.set(id, vs);
        out.times.set(id, parent.times.get(id));
      } else if (!scaleFields.has(id)) {
        const rest = vs.set.difference(replicas);
        if (rest.empty()) continue;
        out.fields.set(id, { ...vs, set: rest });
        out.times.set(id, parent.times.get(id));
      } else {
        out.fields.set(id, vs);
        out.times.set(id, parent.times.get(id));
        scaleFields.delete(id);
      }
    }
    for (const [id, vs] of scaleFields) {
      if (!vs.set.has(replicasPathInScale)) continue;
      out.fields.set(id, { set: replicas, apiVersion: this.parentGroupVersion, applied: vs.applied });
      out.times.set(id, parent.times.get(id));
    }
    return encodeManagedFields(out);
  }
}
