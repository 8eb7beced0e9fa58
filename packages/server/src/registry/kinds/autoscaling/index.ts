import type { KindDefinition } from '../../types.js';
import { horizontalPodAutoscalersV1, horizontalPodAutoscalersV2 } from './horizontalpodautoscalers.js';

export const definitions: KindDefinition[] = [horizontalPodAutoscalersV2, horizontalPodAutoscalersV1];
