import type { KindDefinition } from '../../types.js';
import { leases } from './leases.js';

export const definitions: KindDefinition[] = [leases];
