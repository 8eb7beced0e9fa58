import type { KindDefinition } from '../../types.js';
import { crdDefinition } from '../../../crd/definition.js';

export const definitions: KindDefinition[] = [crdDefinition];
