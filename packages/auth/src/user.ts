/** An authenticated identity, as kube's user.Info. */
export interface UserInfo {
  name: string;
  uid: string;
  groups: string[];
  /** Set by service account tokens (pod, node, credential id) and client certificates (credential id). */
  extra?: Record<string, string[]>;
}

export const ALL_AUTHENTICATED = 'system:authenticated';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';
export const ANONYMOUS = 'system:anonymous';

/**
 * kube-apiserver adds system:authenticated to every authenticated user (its
 * AuthenticatedGroupAdder), except anonymous and users already in either catch-all group;
 * RBAC bindings to that group only work if we do the same.
 */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.name === ANONYMOUS || user.groups.some((g) => g === ALL_AUTHENTICATED || g === ALL_UNAUTHENTICATED)) {
    return { ...user, groups: [...user.groups] };
  }
  return { ...user, groups: [...user.groups, ALL_AUTHENTICATED] };
}
