/** Server-set metadata on create and update (kube's rest.BeforeCreate / BeforeUpdate). */
import { randomUUID, randomInt } from 'node:crypto';
import { newBadRequest } from '@windlass/machinery';
import type { KubeObject } from './types.js';

/** kube's timestamps have second precision: RFC 3339 without fractions. */
export function nowTimestamp(now?: Date): string {
  if (now) return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  // Every write stamps the time; within one second the text is the same, so format it once.
  const second = Math.floor(Date.now() / 1000);
  if (second !== stampedSecond) {
    stampedSecond = second;
    stamp = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return stamp;
}

let stampedSecond = -1;
let stamp = '';

// kube's names.SimpleNameGenerator: 5 characters from an alphabet without vowels or confusable digits.
const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
const maxGeneratedNameLength = 63 - 5;

export function generateName(base: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += alphabet[randomInt(alphabet.length)];
  return base.slice(0, maxGeneratedNameLength) + suffix;
}

/**
 * The object's namespace must be the request's: unset takes the request's, a cluster-scoped
 * object has none, and a different one is refused (EnsureObjectNamespaceMatchesRequestNamespace).
 */
export function ensureNamespaceMatches(obj: KubeObject, requestNamespace: string, namespaced: boolean): void {
  const expected = namespaced ? requestNamespace : '';
  const actual = obj.metadata.namespace ?? '';
  if (actual === expected) return;
  if (actual === '') obj.metadata.namespace = expected;
  else if (expected === '') delete obj.metadata.namespace;
  else throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
  if (obj.metadata.namespace === '') delete obj.metadata.namespace;
}

/** The object's name must be the one on the URL (kube's update and patch handlers, and apply's create). */
export function ensureNameMatches(obj: KubeObject, name: string): void {
  const actual = obj.metadata?.name ?? '';
  if (actual !== name) throw newBadRequest(`the name of the object (${actual}) does not match the name on the URL (${name})`);
}

export function fillCreateMetadata(obj: KubeObject, generation: boolean): void {
  const m = obj.metadata;
  m.uid = randomUUID();
  m.creationTimestamp = nowTimestamp();
  delete m.deletionTimestamp;
  delete m.deletionGracePeriodSeconds;
  // selfLink is gone from kube's answers (since 1.20); one a client sends is not kept.
  delete m.selfLink;
  // kube's BeforeCreate leaves a sent generation alone; kinds that track it start it at 1.
  if (generation) m.generation = 1;
}

/** Fields an update may not change are carried over from the stored object. */
export function carryUpdateMetadata(obj: KubeObject, old: KubeObject, generation: boolean, specChanged: boolean): void {
  const m = obj.metadata, o = old.metadata;
  // kube's BeforeUpdate: the stored uid where the request has none; a different one is left for
  // validation to refuse (immutable). A PUT's uid was already checked as a precondition.
  if (!m.uid) m.uid = o.uid;
  m.creationTimestamp = o.creationTimestamp;
  delete m.selfLink;
  // An update never removes or moves a deletionTimestamp, nor removes deletionGracePeriodSeconds;
  // one that sets either where there was none, or changes the grace period, is kept for
  // validation to refuse (immutable), as kube's BeforeUpdate leaves it.
  if (o.deletionTimestamp) m.deletionTimestamp = o.deletionTimestamp;
  else if (m.deletionTimestamp === null || m.deletionTimestamp === '') delete m.deletionTimestamp;
  if (m.deletionGracePeriodSeconds === undefined || m.deletionGracePeriodSeconds === null) {
    if (o.deletionGracePeriodSeconds !== undefined) m.deletionGracePeriodSeconds = o.deletionGracePeriodSeconds;
    else delete m.deletionGracePeriodSeconds;
  }
  // kube's BeforeUpdate: requests cannot change generation; kinds that track it bump it on spec changes.
  if (generation) m.generation = (o.generation ?? 1) + (specChanged ? 1 : 0);
  else if (o.generation !== undefined) m.generation = o.generation;
  else delete m.generation;
}
