/**
 * ValidatingAdmissionWebhook's dispatcher (kube's validating/dispatcher.go): every matching
 * webhook is called at once; the first refusal (or call failure under failurePolicy Fail) to
 * arrive refuses the request.
 */
import type { DynamicAdmissionAttributes } from '../../registry/types.js';
import type { ServiceResolver } from './client.js';
import { callWebhook, ErrCallingWebhook, failClosed, passesMatchConditions, versionConverter } from './invoke.js';
import { shouldCallHook, type Invocation, type MatchContext } from './matching.js';
import type { WebhookAccessor } from './types.js';

export async function dispatchValidating(hooks: WebhookAccessor[], a: DynamicAdmissionAttributes, ctx: MatchContext, resolver: ServiceResolver): Promise<void> {
  const convert = versionConverter(a.def);
  const calls: Array<{ inv: Invocation; obj?: typeof a.obj; old?: typeof a.old }> = [];
  for (const accessor of hooks) {
    const inv = await shouldCallHook(accessor, a, ctx);
    if (!inv) continue;
    const obj = a.obj && (await convert.toVersion(a.obj, inv.def));
    const old = a.old && (await convert.toVersion(a.old, inv.def));
    if (!(await passesMatchConditions(inv, a, { obj, old }, ctx.authorizer?.()))) continue;
    calls.push({ inv, obj, old });
  }
  if (calls.length === 0) return;
  const errors: unknown[] = [];
  await Promise.all(calls.map(async ({ inv, obj, old }) => {
    try {
      await callWebhook(inv, a, { obj, old }, resolver);
    } catch (err) {
      const refusal = err instanceof ErrCallingWebhook ? failClosed(inv, err) : err;
      if (refusal !== undefined) errors.push(refusal);
    }
  }));
  if (errors.length > 0) throw errors[0];
}
