import type { KindDefinition } from '../../types.js';
import { controllerRevisions } from './controllerrevisions.js';
import { daemonSets } from './daemonsets.js';
import { deployments } from './deployments.js';
import { replicaSets } from './replicasets.js';
import { statefulSets } from './statefulsets.js';

export const definitions: KindDefinition[] = [deployments, replicaSets, statefulSets, daemonSets, controllerRevisions];
