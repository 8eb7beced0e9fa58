/**
 * kube-controller-manager's service account token controller (pkg/serviceaccount
 * tokens_controller.go), in process: a Secret of type kubernetes.io/service-account-token
 * naming a service account gets `token` (a legacy JWT signed with the service account signing
 * key), `ca.crt` and `namespace` filled in and the account's uid annotated; one whose account
 * does not exist is deleted, as are an account's token Secrets when the account is deleted, and
 * a deleted token Secret leaves the account's `secrets` list. Every write is conditional (on the
 * resourceVersion or uid), so each replica may run it.
 */
import { legacyTokenClaims, type ServiceAccountTokens } from '@windlass/auth';
import type { CachedObject } from '../../../cacher/cachedobject.js';
import { StoreFollower } from '../../../controllers/follower.js';
import type { CacheEventType } from '../../../cacher/watchcache.js';
import type { Store } from '../../store.js';
import { parseListOptions } from '../../listoptions.js';
import type { KubeObject } from '../../types.js';

export const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token';
export const SERVICE_ACCOUNT_NAME_KEY = 'kubernetes.io/service-account.name';
export const SERVICE_ACCOUNT_UID_KEY = 'kubernetes.io/service-account.uid';

type Secret = KubeObject & { type?: string; data?: Record<string, string> };
type ServiceAccount = KubeObject & { secrets?: { name?: string }[] };

const retryMs = 1000;
const cachedList = parseListOptions(new URLSearchParams('resourceVersion=0'), false);

const annotation = (o: KubeObject, key: string) => o.metadata.annotations?.[key] ?? '';
const statusCode = (err: unknown) => (err as { code?: number }).code;

export class TokenController {
  private readonly follower: StoreFollower;
  private queue = new Map<string, () => Promise<void>>();
  private running = new Set<string>();
  private timers = new Set<NodeJS.Timeout>();
  private stopped = false;
  private readonly rootCA: string;

  constructor(private secrets: Store, private serviceAccounts: Store, private tokens: ServiceAccountTokens) {
    this.rootCA = tokens.rootCA ? Buffer.from(tokens.rootCA).toString('base64') : '';
    // A restarted cache closed its watchers: the follower attaches again every 2 s.
    this.follower = new StoreFollower(() => [secrets, serviceAccounts], {
      initial: true,
      intervalMs: 2000,
      event: (store, type, o) => {
        if (store === this.secrets) this.secretEvent(type, o);
        else if (type === 'DELETED') this.serviceAccountDeleted(o.object);
      },
    });
  }

  start(): void {
    this.follower.start();
  }

  stop(): void {
    this.stopped = true;
    this.follower.stop();
    for (const t of this.timers) clearTimeout(t);
  }

  private secretEvent(type: CacheEventType, o: CachedObject): void {
    const secret = o.object as Secret;
    if (secret.type !== SERVICE_ACCOUNT_TOKEN_TYPE) return;
    const ns = secret.metadata.namespace ?? '';
    const name = secret.metadata.name ?? '';
    if (type === 'DELETED') this.enqueue(`ref/${ns}/${name}`, () => this.removeSecretReference(secret));
    else this.enqueue(`secret/${ns}/${name}`, () => this.syncSecret(ns, name));
  }

  private serviceAccountDeleted(sa: KubeObject): void {
    const ns = sa.metadata.namespace ?? '';
    this.enqueue(`sa/${ns}/${sa.metadata.name}`, () => this.deleteTokens(sa));
  }

  /** One task per key at a time; a key queued while it runs runs again after (with the latest task). */
  private enqueue(key: string, task: () => Promise<void>): void {
    if (this.stopped) return;
    this.queue.set(key, task);
    if (!this.running.has(key)) this.run(key);
  }

  private run(key: string): void {
    const task = this.queue.get(key);
    if (!task || this.stopped) return;
    this.queue.delete(key);
    this.running.add(key);
    task().then(() => {
      this.running.delete(key);
      this.run(key);
    }, (err: unknown) => {
      this.running.delete(key);
      console.error(`token controller: ${key}: ${(err as Error).message}; will retry`);
      if (!this.queue.has(key)) this.queue.set(key, task);
      const t = setTimeout(() => { this.timers.delete(t); if (!this.running.has(key)) this.run(key); }, retryMs);
      t.unref();
      this.timers.add(t);
    });
  }

  /** The account a token Secret names, when it exists with the uid the Secret records (if any). */
  private async serviceAccountOf(secret: Secret): Promise<ServiceAccount | undefined> {
    const ns = secret.metadata.namespace ?? '';
    const sa = await this.serviceAccounts.get(ns, annotation(secret, SERVICE_ACCOUNT_NAME_KEY)).then((c) => c.object as ServiceAccount, (err: unknown) => {
      if (statusCode(err) === 404) return undefined;
      throw err;
    });
    const uid = annotation(secret, SERVICE_ACCOUNT_UID_KEY);
    return sa && (uid === '' || uid === sa.metadata.uid) ? sa : undefined;
  }

  /** syncSecret: delete a token whose account is gone, fill one that lacks its data. */
  private async syncSecret(ns: string, name: string): Promise<void> {
    const secret = await this.secrets.get(ns, name).then((c) => c.object as Secret, (err: unknown) => {
      if (statusCode(err) === 404) return undefined;
      throw err;
    });
    if (!secret || secret.type !== SERVICE_ACCOUNT_TOKEN_TYPE || secret.metadata.deletionTimestamp) return;
    const sa = await this.serviceAccountOf(secret);
    if (!sa) {
      await this.secrets.delete(ns, name, { dryRun: false, preconditions: { uid: secret.metadata.uid } }).catch((err: unknown) => {
        if (statusCode(err) !== 404 && statusCode(err) !== 409) throw err;
      });
      return;
    }
    const data = secret.data ?? {};
    const needsCA = this.rootCA !== '' && data['ca.crt'] !== this.rootCA;
    const needsNamespace = !data.namespace;
    const needsToken = !data.token;
    if (!needsCA && !needsNamespace && !needsToken) return;
    if (needsCA) data['ca.crt'] = this.rootCA;
    if (needsNamespace) data.namespace = Buffer.from(ns).toString('base64');
    if (needsToken) {
      const claims = legacyTokenClaims({ namespace: ns, name: sa.metadata.name ?? '', uid: sa.metadata.uid ?? '' }, name);
      data.token = Buffer.from(this.tokens.sign(claims)).toString('base64');
    }
    secret.data = data;
    secret.metadata.annotations = { ...(secret.metadata.annotations ?? {}), [SERVICE_ACCOUNT_NAME_KEY]: sa.metadata.name ?? '', [SERVICE_ACCOUNT_UID_KEY]: sa.metadata.uid ?? '' };
    // Conditional on the version read: a Secret changed meanwhile is synced again from its own event.
    await this.secrets.update(ns, name, secret, { dryRun: false }).catch((err: unknown) => {
      if (statusCode(err) !== 404 && statusCode(err) !== 409) throw err;
    });
  }

  /** A deleted token Secret leaves its account's `secrets` list (removeSecretReference). */
  private async removeSecretReference(secret: Secret): Promise<void> {
    const sa = await this.serviceAccountOf(secret);
    if (!sa?.secrets?.some((s) => s.name === secret.metadata.name)) return;
    await this.serviceAccounts.guaranteedUpdate(sa.metadata.namespace ?? '', sa.metadata.name ?? '', (current) => {
      const cur = current as ServiceAccount;
      if (cur.metadata.uid !== sa.metadata.uid) throw Object.assign(new Error('replaced'), { code: 404 });
      cur.secrets = (cur.secrets ?? []).filter((s) => s.name !== secret.metadata.name);
      return cur;
    }, { dryRun: false }).catch((err: unknown) => {
      if (statusCode(err) !== 404) throw err;
    });
  }

  /** deleteTokens: an account's token Secrets go with it. */
  private async deleteTokens(sa: KubeObject): Promise<void> {
    const ns = sa.metadata.namespace ?? '';
    const { items } = await this.secrets.list(ns, cachedList);
    for (const c of items) {
      const secret = c.object as Secret;
      if (secret.type !== SERVICE_ACCOUNT_TOKEN_TYPE || annotation(secret, SERVICE_ACCOUNT_NAME_KEY) !== sa.metadata.name) continue;
      const uid = annotation(secret, SERVICE_ACCOUNT_UID_KEY);
      if (uid !== '' && uid !== sa.metadata.uid) continue;
      await this.secrets.delete(ns, secret.metadata.name ?? '', { dryRun: false, preconditions: { uid: secret.metadata.uid } }).catch((err: unknown) => {
        if (statusCode(err) !== 404 && statusCode(err) !== 409) throw err;
      });
    }
  }
}
