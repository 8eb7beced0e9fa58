/**
 * The position of a value in the object plus the patch-metadata lookup: the TypeScript
 * counterpart of Go's LookupPatchMeta tree walker.
 */
import type { PatchMetaLookup } from '@windlass/machinery';
import { SMPError } from './errors.js';

export interface Schema {
  readonly lookup: PatchMetaLookup;
  /** Field names from the root; list elements add nothing. */
  readonly path: readonly string[];
}

export interface FieldMeta {
  sub: Schema;
  /** The strategy other than retainKeys: `merge`, `replace` or "". */
  strategy: string;
  mergeKey: string;
}

/** LookupPatchMetadataForStruct / ForSlice followed by extractRetainKeysPatchStrategy. */
export function lookupField(schema: Schema, key: string): FieldMeta {
  const path = [...schema.path, key];
  const meta = schema.lookup(path);
  const strategies = meta.patchStrategy ? meta.patchStrategy.split(',') : [];
  return { sub: { lookup: schema.lookup, path }, strategy: otherThanRetainKeys(strategies), mergeKey: meta.patchMergeKey ?? '' };
}

function otherThanRetainKeys(strategies: string[]): string {
  switch (strategies.length) {
    case 0:
      return '';
    case 1:
      return strategies[0] === 'retainKeys' ? '' : strategies[0];
    case 2:
      if (strategies[0] === 'retainKeys') return strategies[1];
      if (strategies[1] === 'retainKeys') return strategies[0];
      break;
    default:
      break;
  }
  throw new SMPError(`unexpected patch strategy: [${strategies.join(' ')}]`);
}
