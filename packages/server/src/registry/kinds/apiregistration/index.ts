import type { KindDefinition } from '../../types.js';
import { apiServices } from './apiservices.js';

export const definitions: KindDefinition[] = [apiServices];
