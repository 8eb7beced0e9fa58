import type { KindDefinition } from '../../types.js';
import { podDisruptionBudgets } from './poddisruptionbudgets.js';

export const definitions: KindDefinition[] = [podDisruptionBudgets];
