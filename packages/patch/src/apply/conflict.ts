/**
 * Apply conflicts (merge/conflict.go): the fields an applier tried to change that another
 * manager owns. The message format is SMD's; kube puts it into the 409.
 */
import { goQuote } from '@windlass/machinery';
import { pathToString, pathsEqual, type Path } from './fieldpath.js';
import type { ManagedFields } from './updater.js';
import { compareStrings } from './value.js';

export interface Conflict {
  readonly manager: string;
  readonly path: Path;
}

export function conflictMessage(c: Conflict, printManager: (manager: string) => string = goQuote): string {
  return `conflict with ${printManager(c.manager)}: ${pathToString(c.path)}`;
}

export class Conflicts extends Error {
  constructor(readonly conflicts: readonly Conflict[]) {
    super(conflictsMessage(conflicts));
    this.name = 'Conflicts';
  }

  equals(other: Conflicts): boolean {
    const a = this.conflicts;
    const b = other.conflicts;
    return a.length === b.length && a.every((c, i) => c.manager === b[i].manager && pathsEqual(c.path, b[i].path));
  }

  /**
   * ConflictsFromManagers. SMD walks a Go map, so its manager order is random; here
   * managers come sorted by name, each with its paths in set order.
   */
  static fromManagers(sets: ManagedFields): Conflicts {
    const out: Conflict[] = [];
    for (const manager of [...sets.keys()].sort(compareStrings)) sets.get(manager)!.set.iterate((p) => out.push({ manager, path: p.slice() }));
    return new Conflicts(out);
  }
}

/**
 * Conflicts.Error(): one conflict alone, else grouped under each manager (sorted). kube words its
 * 409 the same way, naming managers by its own printer (operation, apiVersion, subresource).
 */
export function conflictsMessage(conflicts: readonly Conflict[], printManager: (manager: string) => string = goQuote): string {
  if (conflicts.length === 1) return conflictMessage(conflicts[0], printManager);
  const byManager = new Map<string, Path[]>();
  for (const c of conflicts) {
    const paths = byManager.get(c.manager);
    if (paths) paths.push(c.path);
    else byManager.set(c.manager, [c.path]);
  }
  const lines: string[] = [];
  for (const manager of [...byManager.keys()].sort(compareStrings)) {
    lines.push(`conflicts with ${printManager(manager)}:`);
    for (const p of byManager.get(manager)!) lines.push(`- ${pathToString(p)}`);
  }
  return lines.join('\n');
}
