/** What kube-apiserver warns when it ignores `Bearer  token` (two spaces). */
export const EXTRA_SPACE_WARNING = 'the provided Authorization header contains extra space before the bearer token, and is ignored';

export interface BearerToken {
  /** The token, or null when the header carries none kube would use. */
  token: string | null;
  /** Set when the header looked like a bearer token kube deliberately ignores. */
  warning?: string;
}

/**
 * Extracts the token as kube's bearertoken authenticator does: the header is trimmed and
 * split on single spaces; the scheme is case-insensitive; the token is the second part,
 * and anything after it is ignored (`Bearer abc def` presents `abc`). A token can thus
 * never contain a space, and `Bearer  abc` (an empty second part) presents no token.
 */
export function parseBearerToken(authorization: string | undefined): BearerToken {
  const header = (authorization ?? '').trim();
  if (header === '') return { token: null };
  const parts = header.split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return { token: null };
  const token = parts[1]!;
  if (token === '') return parts.length >= 3 ? { token: null, warning: EXTRA_SPACE_WARNING } : { token: null };
  return { token };
}
