/**
 * CBOR as kube-apiserver 1.35 serves it behind the CBORServingAndStorage feature gate
 * (k8s.io/apimachinery/pkg/runtime/serializer/cbor): objects in their JSON form encoded as kube
 * encodes the Go values, and CBOR bodies decoded into the JSON form.
 */
export { CBOREncodeError, CBORRaw, encodeCBOR, encodeCBORWatchEvent, selfDescribedCBOR, type CBOREncodeOptions } from './encode.js';
export { CBORDecodeError, cborLimits, decodeCBOR, interpretCBORTypeMeta, type CBORDecodeOptions } from './decode.js';
export { CBORPlanCompiler, type CBORPlan, type DefinitionResolver } from './plan.js';
