import { isStatusError } from '@windlass/machinery';
import { adminTokenEntry } from './admintoken.js';
import { TokenAuthenticator } from './authenticator.js';
import { EXTRA_SPACE_WARNING, parseBearerToken } from './bearer.js';

const ADMIN = 'k3y_-ADMIN0123456789abcdefghijklmnopqrstuvw';

function authenticator(): TokenAuthenticator {
  return new TokenAuthenticator([
    adminTokenEntry(ADMIN),
    { token: 'viewer-token', user: { name: 'viewer', uid: 'v-1', groups: ['viewers'] } },
    { token: 'already', user: { name: 'a', uid: '', groups: ['system:authenticated', 'x'] } },
    { token: 'with space', user: { name: 'spaced', uid: '', groups: [] } },
    { token: 'with', user: { name: 'prefix', uid: '', groups: [] } },
    { token: '', user: { name: 'empty', uid: '', groups: [] } },
  ]);
}

describe('parseBearerToken (kube bearertoken semantics)', () => {
  it.each<[string | undefined, string | null]>([
    [undefined, null],
    ['', null],
    ['Bearer token', 'token'],
    ['bearer token', 'token'],
    ['BEARER token', 'token'],
    ['  Bearer token  ', 'token'],
    ['Bearer token a', 'token'],
    ['Bearer token a b c', 'token'],
    ['Bearer token   a', 'token'],
    ['Bearer', null],
    ['Bearer ', null],
    ['bear token', null],
    ['Bearer: token', null],
    ['Basic dXNlcjpwYXNz', null],
    ['Bearer\ttoken', null],
  ])('%j -> %j', (header, token) => {
    expect(parseBearerToken(header).token).toBe(token);
  });

  it('warns, like kube, about a space before the token', () => {
    expect(parseBearerToken('Bearer  token')).toEqual({ token: null, warning: EXTRA_SPACE_WARNING });
    expect(parseBearerToken('Bearer token').warning).toBeUndefined();
  });
});

describe('TokenAuthenticator', () => {
  it('maps the admin token to windlass-admin in system:masters', () => {
    expect(authenticator().authenticate(`Bearer ${ADMIN}`)).toEqual({
      name: 'windlass-admin',
      uid: '',
      groups: ['system:masters', 'system:authenticated'],
    });
  });

  it('adds system:authenticated to other users, once', () => {
    const auth = authenticator();
    expect(auth.authenticate('bearer viewer-token')).toEqual({ name: 'viewer', uid: 'v-1', groups: ['viewers', 'system:authenticated'] });
    expect(auth.authenticate('Bearer already')?.groups).toEqual(['system:authenticated', 'x']);
  });

  it('rejects unknown, truncated, extended and differently-cased tokens', () => {
    const auth = authenticator();
    expect(auth.authenticate('Bearer nope')).toBeNull();
    expect(auth.authenticate(`Bearer ${ADMIN.slice(0, -1)}`)).toBeNull();
    expect(auth.authenticate(`Bearer ${ADMIN}x`)).toBeNull();
    expect(auth.authenticate(`Bearer ${ADMIN.toLowerCase()}`)).toBeNull();
  });

  it('rejects requests without a usable bearer header', () => {
    const auth = authenticator();
    expect(auth.authenticate(undefined)).toBeNull();
    expect(auth.authenticate('')).toBeNull();
    expect(auth.authenticate(ADMIN)).toBeNull();
    expect(auth.authenticate(`Basic ${ADMIN}`)).toBeNull();
    expect(auth.authenticate(`Bearer  ${ADMIN}`)).toBeNull();
    expect(auth.authenticate('Bearer ')).toBeNull();
  });

  it('can never match a token containing a space: the header presents only its first word', () => {
    const auth = authenticator();
    expect(auth.authenticate('Bearer with space')?.name).toBe('prefix');
    expect(auth.authenticateToken('with space')?.name).toBe('spaced');
    expect(new TokenAuthenticator([{ token: 'with space', user: { name: 'spaced', uid: '', groups: [] } }]).authenticate('Bearer with space')).toBeNull();
  });

  it('ignores entries with an empty token', () => {
    const auth = authenticator();
    expect(auth.size).toBe(5);
    expect(auth.authenticateToken('')).toBeNull();
  });

  it('hands out users that callers cannot modify', () => {
    const user = authenticator().authenticate(`Bearer ${ADMIN}`)!;
    expect(() => (user.groups as string[]).push('evil')).toThrow();
    expect(authenticator().authenticate(`Bearer ${ADMIN}`)!.groups).toHaveLength(2);
  });

  it('does not alias the entries it was given', () => {
    const entry = { token: 't', user: { name: 'u', uid: '', groups: ['g'] } };
    const auth = new TokenAuthenticator([entry]);
    entry.user.groups.push('later');
    entry.user.name = 'changed';
    expect(auth.authenticateToken('t')).toEqual({ name: 'u', uid: '', groups: ['g', 'system:authenticated'] });
  });

  it('require() throws a 401 Unauthorized Status for a missing or bad token', () => {
    const auth = authenticator();
    expect(auth.require(`Bearer ${ADMIN}`).name).toBe('windlass-admin');
    for (const header of [undefined, 'Bearer bad']) {
      let caught: unknown;
      try {
        auth.require(header);
      } catch (err) {
        caught = err;
      }
      expect(isStatusError(caught)).toBe(true);
      expect((caught as { code: number }).code).toBe(401);
      expect((caught as { reason: string }).reason).toBe('Unauthorized');
    }
  });
});
