/** sorted-btree is CommonJS with `exports.default`; this gives ESM code the class itself. */
import * as mod from 'sorted-btree';

type BTreeCtor = typeof mod.default.default;
const loaded = mod as unknown as { default: { default?: BTreeCtor } };
export const BTree: BTreeCtor = (loaded.default.default ?? loaded.default) as BTreeCtor;
export type BTree<K, V> = InstanceType<typeof mod.default.default<K, V>>;
