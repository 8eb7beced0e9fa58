import type { TableColumn } from '../types.js';

export const standardVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export const nameColumn: TableColumn = { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 };
export const ageColumn: TableColumn = { name: 'Age', type: 'string', format: '', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.', priority: 0 };

export function column(name: string, type: string, description: string, priority = 0): TableColumn {
  return { name, type, format: '', description, priority };
}

/** Bytes of a data map as kube counts them toward the 1 MiB limit (MaxSecretSize). */
export const maxDataSize = 1024 * 1024;
