import type { KindDefinition } from '../../types.js';
import { selfSubjectReviews } from './selfsubjectreviews.js';
import { tokenReviews } from './tokenreviews.js';

export const definitions: KindDefinition[] = [tokenReviews, selfSubjectReviews];
