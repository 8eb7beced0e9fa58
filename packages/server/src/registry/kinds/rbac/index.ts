import type { KindDefinition } from '../../types.js';

export const definitions: KindDefinition[] = [];
