import type { KindDefinition } from '../../types.js';
import { runtimeClasses } from './runtimeclasses.js';

export const definitions: KindDefinition[] = [runtimeClasses];
