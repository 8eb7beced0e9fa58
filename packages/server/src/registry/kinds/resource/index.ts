import type { KindDefinition } from '../../types.js';
import { deviceClasses } from './deviceclasses.js';
import { resourceClaims, resourceClaimTemplates } from './resourceclaims.js';
import { resourceSlices } from './resourceslices.js';

export const definitions: KindDefinition[] = [deviceClasses, resourceClaims, resourceClaimTemplates, resourceSlices];
