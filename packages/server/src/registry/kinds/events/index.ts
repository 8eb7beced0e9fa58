import type { KindDefinition } from '../../types.js';
import { eventsAPIEvents } from './events.js';

export const definitions: KindDefinition[] = [eventsAPIEvents];
