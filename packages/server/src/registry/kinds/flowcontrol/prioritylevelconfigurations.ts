/**
 * flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration: kube's v1 defaults (shares,
 * lendable percent, queuing), validation (v1 allows zero nominal shares), generation, status
 * and printer.
 */
import { fieldErr, type FieldError } from '@windlass/machinery';
import type { KindDefinition, KubeObject } from '../../types.js';
import { ageColumn, column } from '../common.js';
import { ageOf } from '../../age.js';
import { isObj, obj, str, type Json } from '../networking/util.js';
import { group, validateTypedConditions } from './flowschemas.js';

const maxQueues = 10 * 1000 * 1000;
/** shufflesharding.MaxHashBits */
const maxHashBits = 60;

export function defaultPriorityLevel(o: KubeObject): void {
  const spec = obj(o.spec);
  if (isObj(spec.exempt)) {
    spec.exempt.nominalConcurrencyShares ??= 0;
    spec.exempt.lendablePercent ??= 0;
  }
  if (isObj(spec.limited)) {
    const limited = spec.limited;
    limited.nominalConcurrencyShares ??= 30;
    limited.lendablePercent ??= 0;
    const queuing = obj(limited.limitResponse).queuing;
    if (isObj(queuing)) {
      if (!queuing.handSize) queuing.handSize = 8;
      if (!queuing.queues) queuing.queues = 64;
      if (!queuing.queueLengthLimit) queuing.queueLengthLimit = 50;
    }
  }
}

/** shufflesharding.RequiredEntropyBits: ceil(log2(deckSize^handSize)). */
function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize);
}

function validateQueuing(q: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const num = (v: unknown) => (typeof v === 'number' ? v : 0);
  const queueLengthLimit = num(q.queueLengthLimit), queues = num(q.queues), handSize = num(q.handSize);
  if (queueLengthLimit <= 0) errs.push(fieldErr.invalid(`${path}.queueLengthLimit`, queueLengthLimit, 'must be positive'));
  if (queues <= 0) errs.push(fieldErr.invalid(`${path}.queues`, queues, 'must be positive'));
  else if (queues > maxQueues) errs.push(fieldErr.invalid(`${path}.queues`, queues, `must not be greater than ${maxQueues}`));
  if (handSize <= 0) errs.push(fieldErr.invalid(`${path}.handSize`, handSize, 'must be positive'));
  else if (handSize > queues) errs.push(fieldErr.invalid(`${path}.handSize`, handSize, `should not be greater than queues (${queues})`));
  else if (requiredEntropyBits(queues, handSize) > maxHashBits) {
    errs.push(fieldErr.invalid(`${path}.handSize`, handSize, `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${maxHashBits}`));
  }
  return errs;
}

function validateLimited(l: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const shares = typeof l.nominalConcurrencyShares === 'number' ? l.nominalConcurrencyShares : 0;
  if (shares < 0) errs.push(fieldErr.invalid(`${path}.nominalConcurrencyShares`, shares, 'must be a non-negative integer'));
  const lr = obj(l.limitResponse);
  const lrPath = `${path}.limitResponse`;
  switch (lr.type) {
    case 'Reject':
      if (lr.queuing !== undefined && lr.queuing !== null) errs.push(fieldErr.forbidden(`${lrPath}.queuing`, 'must be nil if limited.limitResponse.type is not Limited'));
      break;
    case 'Queue':
      if (!isObj(lr.queuing)) errs.push(fieldErr.required(`${lrPath}.queuing`, 'must not be empty if limited.limitResponse.type is Limited'));
      else errs.push(...validateQueuing(lr.queuing, `${lrPath}.queuing`));
      break;
    default:
      errs.push(fieldErr.notSupported(`${lrPath}.type`, str(lr.type), ['Queue', 'Reject']));
  }
  if (typeof l.lendablePercent === 'number' && !(l.lendablePercent >= 0 && l.lendablePercent <= 100)) {
    errs.push(fieldErr.invalid(`${path}.lendablePercent`, l.lendablePercent, 'must be between 0 and 100, inclusive'));
  }
  if (typeof l.borrowingLimitPercent === 'number' && l.borrowingLimitPercent < 0) {
    errs.push(fieldErr.invalid(`${path}.borrowingLimitPercent`, l.borrowingLimitPercent, 'if specified, must be a non-negative integer'));
  }
  return errs;
}

function validateSpec(o: KubeObject): FieldError[] {
  const spec = obj(o.spec);
  const errs: FieldError[] = [];
  const type = str(spec.type);
  if ((o.metadata.name === 'exempt') !== (type === 'Exempt')) errs.push(fieldErr.invalid('spec.type', type, "type must be 'Exempt' if and only if name is 'exempt'"));
  switch (type) {
    case 'Exempt':
      if (spec.limited !== undefined && spec.limited !== null) errs.push(fieldErr.forbidden('spec.limited', 'must be nil if the type is not Limited'));
      if (isObj(spec.exempt)) {
        const e = spec.exempt;
        if (typeof e.nominalConcurrencyShares === 'number' && e.nominalConcurrencyShares < 0) {
          errs.push(fieldErr.invalid('spec.exempt.nominalConcurrencyShares', e.nominalConcurrencyShares, 'must be a non-negative integer'));
        }
        if (typeof e.lendablePercent === 'number' && !(e.lendablePercent >= 0 && e.lendablePercent <= 100)) {
          errs.push(fieldErr.invalid('spec.exempt.lendablePercent', e.lendablePercent, 'must be between 0 and 100, inclusive'));
        }
      }
      break;
    case 'Limited':
      if (spec.exempt !== undefined && spec.exempt !== null) errs.push(fieldErr.forbidden('spec.exempt', 'must be nil if the type is Limited'));
      if (!isObj(spec.limited)) errs.push(fieldErr.required('spec.limited', 'must not be empty when type is Limited'));
      else errs.push(...validateLimited(spec.limited, 'spec.limited'));
      break;
    default:
      errs.push(fieldErr.notSupported('spec.type', type, ['Exempt', 'Limited']));
  }
  return errs;
}

export const priorityLevelConfigurations: KindDefinition = {
  group, version: 'v1', resource: 'prioritylevelconfigurations',
  generation: true,
  strategy: { defaults: defaultPriorityLevel, validate: validateSpec, validateUpdate: (o) => validateSpec(o) },
  subresourceStrategies: { status: { validateUpdate: (o) => validateTypedConditions(o) } },
  table: {
    columns: [
      column('Type', 'string', '`type` indicates whether this priority level is subject to limitation on request execution.  A value of `"Exempt"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `"Limited"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server\'s limited capacity is made available exclusively to this priority level. Required.'),
      column('NominalConcurrencyShares', 'string', '`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level.'),
      column('Queues', 'string', '`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64.'),
      column('HandSize', 'string', '`handSize` is a small positive number that configures the shuffle sharding of requests into queues.'),
      column('QueueLengthLimit', 'string', '`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50.'),
      ageColumn,
    ],
    cells: (o) => {
      const spec = obj(o.spec);
      let ncs: unknown = '<none>', queues: unknown = '<none>', handSize: unknown = '<none>', limit: unknown = '<none>';
      if (isObj(spec.limited)) {
        ncs = spec.limited.nominalConcurrencyShares ?? 0;
        const q = obj(spec.limited.limitResponse).queuing;
        if (isObj(q)) {
          queues = q.queues ?? 0;
          handSize = q.handSize ?? 0;
          limit = q.queueLengthLimit ?? 0;
        }
      }
      return [str(spec.type), ncs, queues, handSize, limit, ageOf(o.metadata.creationTimestamp)];
    },
  },
};
