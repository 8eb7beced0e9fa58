/**
 * The three PATCH body types kube-apiserver accepts besides server-side apply, with
 * kube's semantics and error statuses. Every function leaves `original` untouched.
 */
export { applyJsonPatch, maxJSONPatchOperations, type JSONPatchOptions } from './jsonpatch.js';
export { applyMergePatch, type MergePatchOptions } from './mergepatch.js';
export { applyStrategicMergePatch, strategicMergeMapPatch } from './strategic/index.js';
export { goJSONDepthError, goJSONSyntaxError } from './gojson.js';
export type { PatchMeta, PatchMetaLookup } from '@windlass/machinery';
export { noPatchMeta } from '@windlass/machinery';
export * from './apply/index.js';
