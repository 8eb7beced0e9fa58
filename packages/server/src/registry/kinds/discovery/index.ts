import type { KindDefinition } from '../../types.js';
import { endpointSlices } from './endpointslices.js';

export const definitions: KindDefinition[] = [endpointSlices];
