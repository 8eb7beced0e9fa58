import type { KindDefinition } from '../../types.js';
import { localSubjectAccessReviews, selfSubjectAccessReviews, subjectAccessReviews } from './accessreviews.js';
import { selfSubjectRulesReviews } from './rulesreview.js';

export const definitions: KindDefinition[] = [subjectAccessReviews, localSubjectAccessReviews, selfSubjectAccessReviews, selfSubjectRulesReviews];
