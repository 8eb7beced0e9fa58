import type { KindDefinition } from '../../types.js';
import { ingresses } from './ingresses.js';
import { ingressClasses } from './ingressclasses.js';
import { networkPolicies } from './networkpolicies.js';
import { ipAddresses, serviceCIDRs } from './ipaddresses.js';

export const definitions: KindDefinition[] = [ingresses, ingressClasses, networkPolicies, ipAddresses, serviceCIDRs];
