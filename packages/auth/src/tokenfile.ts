import { readFile } from 'node:fs/promises';
import { CsvParseError, csvRecords } from './csv.js';
import type { UserInfo } from './user.js';

/** One static token and the user it authenticates as. */
export interface TokenEntry {
  token: string;
  user: UserInfo;
}

export interface TokenFileOptions {
  /** Named in messages, as kube names the file. */
  path?: string;
  /** Receives kube's warnings (empty and duplicate tokens); defaults to console.warn. */
  onWarning?: (message: string) => void;
}

function* records(content: string, path: string): Generator<string[], void, void> {
  try {
    yield* csvRecords(content);
  } catch (err) {
    if (err instanceof CsvParseError) throw new Error(`token file '${path}': ${err.message}`);
    throw err;
  }
}

/**
 * Parses kube-apiserver's --token-auth-file: CSV records `token,user,uid[,"group1,group2"]`,
 * with the rules of k8s.io/apiserver's tokenfile.NewCSV: at least 3 columns or the whole
 * file is rejected; columns past the 4th are ignored; a record with an empty token is
 * skipped with a warning; a repeated token is warned about and the later record wins.
 */
export function parseTokenAuthFile(content: string, opts: TokenFileOptions = {}): TokenEntry[] {
  const path = opts.path ?? '<token file>';
  const warn = opts.onWarning ?? ((m: string) => console.warn(m));
  const byToken = new Map<string, TokenEntry>();
  let recordNum = 0;
  for (const record of records(content, path)) {
    if (record.length < 3) {
      throw new Error(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`);
    }
    recordNum++;
    const [token, name, uid, groups] = record as [string, string, string, string | undefined];
    if (token === '') {
      warn(`empty token has been found in token file '${path}', record number '${recordNum}'`);
      continue;
    }
    if (byToken.has(token)) {
      warn(`duplicate token has been found in token file '${path}', record number '${recordNum}'`);
      // Re-inserted so the surviving entry sits where the winning record is.
      byToken.delete(token);
    }
    // Like Go's strings.Split, an empty 4th column yields one empty group name.
    byToken.set(token, { token, user: { name, uid, groups: groups === undefined ? [] : groups.split(',') } });
  }
  return [...byToken.values()];
}

/** Reads and parses a --token-auth-file. */
export async function loadTokenAuthFile(path: string, opts: Omit<TokenFileOptions, 'path'> = {}): Promise<TokenEntry[]> {
  return parseTokenAuthFile(await readFile(path, 'utf8'), { ...opts, path });
}
