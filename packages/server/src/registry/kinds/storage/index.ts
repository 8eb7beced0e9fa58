import type { KindDefinition } from '../../types.js';
import { csiDrivers } from './csidrivers.js';
import { csiNodes } from './csinodes.js';
import { csiStorageCapacities } from './csistoragecapacities.js';
import { storageClasses } from './storageclasses.js';
import { volumeAttachments } from './volumeattachments.js';
import { volumeAttributesClasses } from './volumeattributesclasses.js';

export const definitions: KindDefinition[] = [storageClasses, csiDrivers, csiNodes, csiStorageCapacities, volumeAttachments, volumeAttributesClasses];
