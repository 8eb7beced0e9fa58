import type { KindDefinition } from '../../types.js';
import { cronJobs } from './cronjobs.js';
import { jobs } from './jobs.js';

export const definitions: KindDefinition[] = [jobs, cronJobs];
