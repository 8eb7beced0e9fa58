export * from './status.js';
export * from './labels.js';
export * from './fields.js';
export * from './validation.js';
export * from './patchmeta.js';
export * from './protobuf/index.js';
export * from './duration.js';
