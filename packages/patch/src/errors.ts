/**
 * The two ways kube-apiserver reports patch failures that are not plain BadRequests.
 */
import { failure, type StatusError } from '@windlass/machinery';

/**
 * NewGenericServerResponse(422, …) without "unexpected response" causes: kube answers
 * a fixed message and drops the detail, so the detail only travels as `cause` for logs.
 */
export function genericUnprocessable(detail: string): StatusError {
  const e = failure(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
  (e as { cause?: unknown }).cause = new Error(detail);
  return e;
}

/** A plain Go error reaching the response writer: 500 with reason Unknown ("") and the error text. */
export function unknownError(message: string): StatusError {
  return failure(500, '', message);
}
