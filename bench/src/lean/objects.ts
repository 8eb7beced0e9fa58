/** The ConfigMap the suite writes: JSON of `bytes` bytes as sent (1.5 KB by default), name filled in per request. */

export const NAME_PLACEHOLDER = '__NAME__';
export const NAMESPACE = 'default';
export const CM_PATH = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
/** Names the load generators make are this long, so every body has the same size. */
export const NAME_LENGTH = 16;

export function objectName(prefix: string, i: number): string {
  const digits = NAME_LENGTH - prefix.length;
  return prefix + String(i).padStart(digits, '0');
}

function build(name: string, padding: number, extra: Record<string, string>): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: NAMESPACE, labels: { app: 'bench', tier: 'lean' } },
    data: {
      'app.properties': 'replicas=3\nlog.level=info\nfeature.x=true\n',
      owner: 'bench',
      ...extra,
      payload: 'x'.repeat(Math.max(0, padding)),
    },
  });
}

/** The body as a template: `__NAME__` stands for a NAME_LENGTH-character name. */
export function configMapTemplate(bytes: number, extra: Record<string, string> = {}): string {
  const probe = build('n'.repeat(NAME_LENGTH), 0, extra);
  return build(NAME_PLACEHOLDER, bytes - probe.length, extra);
}

export function fill(template: string, name: string): string {
  return template.replace(NAME_PLACEHOLDER, name);
}
