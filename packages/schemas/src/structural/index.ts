export { isObject, objectMetaFields, type StructuralSchema } from './schema.js';
export { prune, pruneAt, pruneNulls, applyDefaults, hasDefaults } from './prune.js';
export { validateCustomResource, validateCustomResourceStatus, validateValue, jsonEqual, hasValidationRules, blockingRulesError } from './validate.js';
export { checkFormat } from './formats.js';
export { compileGoRegexp, type GoRegexp } from './goregexp.js';
