import type { KindDefinition } from '../../types.js';
import { certificateSigningRequests } from './certificatesigningrequests.js';

export const definitions: KindDefinition[] = [certificateSigningRequests];
