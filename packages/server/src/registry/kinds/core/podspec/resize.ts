/**
 * In-place pod resize (pods/resize, GA in 1.35): what the subresource takes from a request
 * (dropNonResizeUpdates) and ValidatePodResize's rules: only cpu and memory of regular and
 * sidecar containers change, nothing is removed, the QoS class stays, memory limits do not
 * shrink unless the container restarts for it.
 */
import { fieldErr, type FieldError } from '@windlass/machinery';
import { compareQuantities } from '../../../validation/quantity.js';
import { validatePodMeta, type PodValidationOptions } from './pod.js';
import { podQOSClass, quantityOf } from './resources.js';
import { deepEqual, isObject, obj, objs, str, type JsonObject } from './util.js';

/** dropNonResizeUpdates: the old spec with the new containers' resources and resize policies. */
export function resizedSpec(spec: JsonObject, old: JsonObject): JsonObject {
  const merge = (key: string): unknown[] | undefined => {
    const next = objs(spec[key]), prev = objs(old[key]);
    if (next.length === 0) return old[key] as unknown[] | undefined;
    return prev.map((c, i) => {
      const out: JsonObject = { ...c };
      for (const f of ['resources', 'resizePolicy']) {
        if (next[i][f] === undefined) delete out[f];
        else out[f] = next[i][f];
      }
      return out;
    });
  };
  const sameShape = (key: string) => {
    const next = objs(spec[key]), prev = objs(old[key]);
    return next.length === prev.length && next.every((c, i) => str(c.name) === str(prev[i].name));
  };
  // Added, removed, renamed or reordered containers are left for validation to refuse.
  if (!sameShape('containers') || !sameShape('initContainers')) return spec;
  const out: JsonObject = { ...old };
  for (const key of ['containers', 'initContainers']) {
    const merged = merge(key);
    if (merged === undefined) delete out[key];
    else out[key] = merged;
  }
  return out;
}

function resourcesRemoved(next: JsonObject, prev: JsonObject): boolean {
  return Object.keys(prev).some((k) => !(k in next));
}

function validateContainerResize(next: JsonObject, prev: JsonObject, resizePolicy: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const nr = obj(next.resources), or = obj(prev.resources);
  if (resourcesRemoved(obj(nr.requests), obj(or.requests))) errs.push(fieldErr.forbidden(`${path}.requests`, 'resource requests cannot be removed'));
  if (resourcesRemoved(obj(nr.limits), obj(or.limits))) errs.push(fieldErr.forbidden(`${path}.limits`, 'resource limits cannot be removed'));
  const memPolicy = str(objs(resizePolicy).find((p) => p.resourceName === 'memory')?.restartPolicy);
  if (memPolicy === 'NotRequired' || memPolicy === '') {
    const nl = quantityOf(obj(nr.limits).memory), ol = quantityOf(obj(or.limits).memory);
    if (nl && ol && compareQuantities(nl, ol) < 0) {
      errs.push(fieldErr.forbidden(`${path}.limits[memory]`, 'memory limits cannot be decreased unless resizePolicy is RestartContainer'));
    } else if (nl && !ol) {
      errs.push(fieldErr.forbidden(`${path}.limits[memory]`, 'memory limits cannot be added unless resizePolicy is RestartContainer'));
    }
  }
  return errs;
}

/** Whether a container differs from the old one only in cpu and memory (dropCPUMemoryResourcesFromContainer). */
function onlyCPUMemoryChanged(c: JsonObject, old: JsonObject): boolean {
  const strip = (container: JsonObject, reference: JsonObject): JsonObject => {
    const res = obj(container.resources), ref = obj(reference.resources);
    const resources: JsonObject = {};
    for (const which of ['limits', 'requests']) {
      // A list the old container did not have is dropped whole, as kube's munging does.
      if (!isObject(ref[which])) continue;
      const list: JsonObject = { ...obj(res[which]) };
      delete list.cpu;
      delete list.memory;
      if (Object.keys(list).length > 0) resources[which] = list;
    }
    const out: JsonObject = { ...container, resources };
    delete out.resizePolicy;
    return out;
  };
  return deepEqual(strip(c, old), strip(old, old));
}

const podLevelSet = (spec: JsonObject) => {
  const r = obj(spec.resources);
  return Object.keys(obj(r.requests)).length + Object.keys(obj(r.limits)).length > 0;
};

/** ValidatePodResize. */
export function validatePodResize(pod: JsonObject, old: JsonObject, opts: PodValidationOptions): FieldError[] {
  const errs = validatePodMeta(pod, opts);
  const spec = obj(pod.spec), oldSpec = obj(old.spec);
  if (podLevelSet(spec) || podLevelSet(oldSpec)) return [fieldErr.forbidden('', 'pods with pod-level resources cannot be resized')];
  if ('kubernetes.io/config.mirror' in obj(obj(old.metadata).annotations)) return [fieldErr.forbidden('', 'static pods cannot be resized')];
  if (obj(oldSpec.os).name === 'windows') return [fieldErr.forbidden('', 'windows pods cannot be resized')];
  const oldQOS = str(obj(old.status).qosClass) || podQOSClass(oldSpec);
  if (oldQOS !== podQOSClass(spec)) errs.push(fieldErr.invalid('spec', str(obj(pod.status).qosClass), 'Pod QOS Class may not change as a result of resizing'));
  const running = objs(obj(old.status).containerStatuses).find((cs) => isObject(obj(cs.state).running));
  if (running && !isObject(running.resources)) errs.push(fieldErr.forbidden('spec', 'Pod running on node without support for resize'));
  const next = objs(spec.containers), prev = objs(oldSpec.containers);
  const nextInit = objs(spec.initContainers), prevInit = objs(oldSpec.initContainers);
  prevInit.forEach((c, i) => {
    if (c.restartPolicy !== 'Always' || !nextInit[i]) return;
    errs.push(...validateContainerResize(nextInit[i], c, nextInit[i].resizePolicy, `spec.initContainers[${i}].resources`));
  });
  prev.forEach((c, i) => {
    if (!next[i]) return;
    errs.push(...validateContainerResize(next[i], c, next[i].resizePolicy, `spec.containers[${i}].resources`));
  });
  next.forEach((c, i) => {
    if (prev[i] && !onlyCPUMemoryChanged(c, prev[i])) errs.push(fieldErr.forbidden('spec', 'only cpu and memory resources are mutable'));
  });
  nextInit.forEach((c, i) => {
    const o = prevInit[i];
    if (!o) return;
    if (o.restartPolicy === 'Always') {
      if (!onlyCPUMemoryChanged(c, o)) errs.push(fieldErr.forbidden('spec', 'only cpu and memory resources for sidecar containers are mutable'));
    } else if (!deepEqual(c, o)) {
      errs.push(fieldErr.forbidden('spec', 'resources for non-sidecar init containers are immutable'));
    }
  });
  if (errs.length > 0) return errs;
  const rest = (s: JsonObject) => ({ ...s, containers: undefined, initContainers: undefined });
  if (next.length !== prev.length || nextInit.length !== prevInit.length || !deepEqual(rest(spec), rest(oldSpec))) {
    errs.push(fieldErr.forbidden('spec', 'only cpu and memory resources are mutable'));
  }
  return errs;
}
