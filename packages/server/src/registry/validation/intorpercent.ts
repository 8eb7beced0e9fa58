/**
 * intstr.IntOrString fields read as "a count or a percentage" (rolling update surge and
 * unavailability, PodDisruptionBudget bounds): kube's ValidatePositiveIntOrPercent,
 * IsNotMoreThan100Percent and the value helpers of pkg/apis/apps/validation, with their
 * messages. In a field error the value prints as JSON: `0` or `"150%"`.
 */
import { fieldErr, regexError, type FieldError } from '@windlass/machinery';

const percentFmt = '[0-9]+%';
const percentRe = new RegExp(`^${percentFmt}$`);

/** k8s.io/apimachinery IsValidPercent. */
export function isValidPercent(s: string): string[] {
  if (percentRe.test(s)) return [];
  return [regexError("a valid percent string must be a numeric string followed by an ending '%'", percentFmt, '1%', '93%')];
}

/** Go's strconv.Atoi for intstr's IntValue(): an unparsable string is 0. */
function atoi(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) return 0;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : 0;
}

/** The percentage of a valid percent string, or undefined. */
export function percentValue(v: unknown): number | undefined {
  if (typeof v !== 'string' || isValidPercent(v).length > 0) return undefined;
  return atoi(v.slice(0, -1));
}

/** getIntOrPercentValue: the percentage of a percent string, else the integer (a non-numeric string counts as 0). */
export function intOrPercentValue(v: unknown): number {
  const p = percentValue(v);
  if (p !== undefined) return p;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return atoi(v);
  return 0;
}

export function validateNonnegativeField(value: number, path: string): FieldError[] {
  return value < 0 ? [fieldErr.invalid(path, value, 'must be greater than or equal to 0')] : [];
}

/** ValidatePositiveIntOrPercent: a valid percent string, or an integer that is not negative. */
export function validatePositiveIntOrPercent(v: unknown, path: string): FieldError[] {
  if (typeof v === 'string') return isValidPercent(v).map((msg) => fieldErr.invalid(path, v, msg));
  if (typeof v === 'number') return validateNonnegativeField(v, path);
  return [fieldErr.invalid(path, v ?? 0, "must be an integer or percentage (e.g '5%%')")];
}

/** IsNotMoreThan100Percent: only percent strings are checked. */
export function validateNotMoreThan100Percent(v: unknown, path: string): FieldError[] {
  const p = percentValue(v);
  return p !== undefined && p > 100 ? [fieldErr.invalid(path, v, 'must not be greater than 100%')] : [];
}
