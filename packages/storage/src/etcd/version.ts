/**
 * Whether an etcd server answers progress requests only after every earlier event was
 * sent (etcd issue 15220, fixed in 3.4.31 and 3.5.13). Older servers may report a
 * revision whose events are still in flight, so progress can't prove a cache is fresh.
 */
export function supportsProgressRequests(version: string): boolean {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  if (!m) return false;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return minor > 5;
}
