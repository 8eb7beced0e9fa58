import { newConflict, newInternalError, StatusError } from './status.js';

describe('StatusError stacks', () => {
  const gr = { group: 'apps', resource: 'deployments' };

  test('an answer (4xx) records no stack frames; the limit is restored after', () => {
    const before = Error.stackTraceLimit;
    const err = newConflict(gr, 'web', 'the object has been modified');
    expect(err).toBeInstanceOf(StatusError);
    expect(err.code).toBe(409);
    expect(err.stack?.split('\n').filter((l) => l.trim().startsWith('at '))).toEqual([]);
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error('x').stack).toContain('status.test');
  });

  test('a server error (5xx) keeps its stack for the log', () => {
    const err = newInternalError('boom');
    expect(err.code).toBe(500);
    expect(err.stack).toContain('status.test');
  });
});
