/**
 * Windlass's schema data for the kinds it serves (extracted from Kubernetes' OpenAPI
 * v2 document by scripts/extract.mjs) and what is derived from it: kind definitions,
 * strategic-merge-patch metadata and the /openapi/v2 and /openapi/v3 documents.
 */
export type { ExtractedOpenAPI, GroupVersionKind, JsonObject, ServedResource } from './types.js';
export { Schemas, collectRefs } from './definitions.js';
export { loadSchemas, loadedSchemas } from './load.js';
export { patchMetaFor, patchMetaAt } from './patchmeta.js';
export { buildOpenAPIV2 } from './openapi-v2.js';
export { buildOpenAPIV3, openAPIV3Index, openAPIV3Hash } from './openapi-v3.js';
export type { BuiltinResource, BuiltinSubresource } from './resources.js';
export { builtinResourceTable } from './resources.js';
export { checkObjectMeta, DecodeError, DecodeTypeError, decoderFor, type ObjectDecoder } from './decoder.js';
export { goDecoderFor, goEncoderFor, goRequestEncoderFor, loadGoTypes, type GoEncoder } from './gofill.js';
export * as structural from './structural/index.js';
