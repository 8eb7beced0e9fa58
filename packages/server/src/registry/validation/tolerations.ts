/**
 * Tolerations of core/v1 (pkg/apis/core/validation ValidateTolerations), as pods and
 * RuntimeClasses carry them, with kube's messages (a Toleration printed with Go's %#v).
 */
import { fieldErr, goQuote, isValidLabelValue, type FieldError } from '@windlass/machinery';
import { validateLabelName } from './labelselector.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Go's %#v of a core.Toleration (a set tolerationSeconds is a pointer). */
export function goTolerationRepr(t: Record<string, unknown>): string {
  const seconds = typeof t.tolerationSeconds === 'number' ? '(*int64)(0xc000000000)' : '(*int64)(nil)';
  return `core.Toleration{Key:${goQuote(str(t.key))}, Operator:${goQuote(str(t.operator))}, Value:${goQuote(str(t.value))}, Effect:${goQuote(str(t.effect))}, TolerationSeconds:${seconds}}`;
}

/** validateTaintEffect with allowEmpty (tolerations). */
function validateTaintEffect(effect: string, path: string): FieldError[] {
  const supported = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
  return supported.includes(effect) ? [] : [fieldErr.notSupported(path, effect, supported)];
}

export function validateTolerations(tolerations: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (Array.isArray(tolerations) ? tolerations : []).forEach((raw, i) => {
    const t = isObject(raw) ? raw : {};
    const p = `${path}[${i}]`;
    const key = str(t.key);
    const operator = str(t.operator);
    const value = str(t.value);
    const effect = str(t.effect);
    if (key.length > 0) errs.push(...validateLabelName(key, `${p}.key`));
    if (key.length === 0 && operator !== 'Exists') {
      errs.push(fieldErr.invalid(`${p}.operator`, operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (typeof t.tolerationSeconds === 'number' && effect !== 'NoExecute') {
      errs.push(fieldErr.invalid(`${p}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    switch (operator) {
      case 'Equal':
      case '': {
        const msgs = isValidLabelValue(value);
        if (msgs.length > 0) errs.push(fieldErr.invalid(`${p}.operator`, value, msgs.join(';')));
        break;
      }
      case 'Exists':
        if (value.length > 0) {
          errs.push({ type: 'FieldValueInvalid', field: `${p}.operator`, detail: `Invalid value: ${goTolerationRepr(t)}: value must be empty when \`operator\` is 'Exists'` });
        }
        break;
      default:
        errs.push(fieldErr.notSupported(`${p}.operator`, operator, ['Equal', 'Exists']));
    }
    if (effect.length > 0) errs.push(...validateTaintEffect(effect, `${p}.effect`));
  });
  return errs;
}
