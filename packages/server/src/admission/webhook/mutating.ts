/**
 * MutatingAdmissionWebhook's dispatcher (kube's mutating/dispatcher.go): the matching webhooks
 * one after another, each given the object as the ones before left it; a JSONPatch answer is
 * applied to the object in the webhook's version, which is then defaulted again and written
 * back in place. Webhooks with reinvocationPolicy IfNeeded run once more when a later webhook
 * changed the object after them.
 */
import { newInternalError } from '@windlass/machinery';
import { applyJsonPatch } from '@windlass/patch';
import type { DynamicAdmissionAttributes, KubeObject } from '../../registry/types.js';
import { semanticEqual } from '../../registry/semanticequal.js';
import type { ServiceResolver } from './client.js';
import { callWebhook, ErrCallingWebhook, failClosed, passesMatchConditions, versionConverter } from './invoke.js';
import { shouldCallHook, type Invocation, type MatchContext } from './matching.js';
import type { WebhookAccessor } from './types.js';

function replaceContents(target: KubeObject, source: KubeObject): void {
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, source);
}

export async function dispatchMutating(hooks: WebhookAccessor[], a: DynamicAdmissionAttributes, ctx: MatchContext, resolver: ServiceResolver): Promise<void> {
  const convert = versionConverter(a.def);
  const previouslyInvoked = new Set<string>();
  const reinvoke = new Set<string>();
  let shouldReinvoke = false;
  for (const round of [0, 1]) {
    if (round === 1 && !shouldReinvoke) return;
    for (const accessor of hooks) {
      const inv = await shouldCallHook(accessor, a, ctx);
      if (!inv) continue;
      // A webhook skipped in the first round is never called for the first time in the second.
      if (round === 1 && !reinvoke.has(accessor.uid)) continue;
      const obj = a.obj && (await convert.toVersion(a.obj, inv.def));
      const old = a.old && (await convert.toVersion(a.old, inv.def));
      if (!(await passesMatchConditions(inv, a, { obj, old }, ctx.authorizer?.()))) continue;
      let changed = false;
      let err: unknown;
      try {
        changed = await callMutating(inv, a, obj, old, resolver);
      } catch (e) {
        err = e;
      }
      if (changed) {
        for (const uid of previouslyInvoked) reinvoke.add(uid);
        previouslyInvoked.clear();
        shouldReinvoke = true;
      }
      if (accessor.webhook.reinvocationPolicy === 'IfNeeded') previouslyInvoked.add(accessor.uid);
      if (err === undefined) continue;
      if (!(err instanceof ErrCallingWebhook)) throw err;
      const closed = failClosed(inv, err);
      if (closed) throw closed;
    }
  }
}

/** One call; answers whether its patch changed the object (then already written to a.obj). */
async function callMutating(inv: Invocation, a: DynamicAdmissionAttributes, obj: KubeObject | undefined, old: KubeObject | undefined, resolver: ServiceResolver): Promise<boolean> {
  const name = inv.accessor.webhook.name;
  const response = await callWebhook(inv, a, { obj, old }, resolver);
  if (!response.patch || response.patch.length === 0) return false;
  if (response.patchType !== 'JSONPatch') throw new ErrCallingWebhook(name, `unsupported patch type "${response.patchType}"`);
  let ops: unknown;
  try {
    ops = JSON.parse(response.patch.toString('utf8'));
  } catch (err) {
    throw new ErrCallingWebhook(name, `received undecodable patch in webhook response: ${(err as Error).message}`);
  }
  if (!Array.isArray(ops)) throw new ErrCallingWebhook(name, 'received undecodable patch in webhook response: json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  if (ops.length === 0) return false;
  if (!obj || !a.obj) throw newInternalError(`admission webhook "${name}" attempted to modify the object, which is not supported for this operation`);
  let patched: KubeObject;
  try {
    patched = applyJsonPatch(obj, response.patch, { fieldValidation: 'Ignore' }) as KubeObject;
  } catch (err) {
    throw newInternalError((err as Error).message);
  }
  // The patched JSON is decoded into the kind again: defaulted as every decoded object is (custom
  // resources also pruned to their schema).
  patched.metadata ??= {};
  if (inv.def.decoder) inv.def.decoder(patched, []);
  else inv.def.strategy.defaults?.(patched);
  const changed = !semanticEqual(obj, patched);
  if (changed) replaceContents(a.obj, await versionConverter(a.def).fromVersion(patched, inv.def));
  return changed;
}
