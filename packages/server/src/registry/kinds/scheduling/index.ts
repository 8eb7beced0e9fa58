import type { KindDefinition } from '../../types.js';
import { priorityClasses } from './priorityclasses.js';

export const definitions: KindDefinition[] = [priorityClasses];
