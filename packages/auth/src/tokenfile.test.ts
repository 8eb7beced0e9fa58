import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TokenAuthenticator } from './authenticator.js';
import { loadTokenAuthFile, parseTokenAuthFile, type TokenEntry } from './tokenfile.js';
import { tempDirs } from './testutil.js';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

function parse(content: string): { entries: TokenEntry[]; warnings: string[] } {
  const warnings: string[] = [];
  const entries = parseTokenAuthFile(content, { path: 'tokens.csv', onWarning: (m) => warnings.push(m) });
  return { entries, warnings };
}

// TestTokenFile from k8s.io/apiserver/pkg/authentication/token/tokenfile.
const KUBE_EXAMPLE = `
token1,user1,uid1
token2,user2,uid2
token3,user3,uid3,"group1,group2"
token4,user4,uid4,"group2"
token5,user5,uid5,group5
token6,user6,uid6,group5,otherdata
token7,user7,uid7,"group1,group2",otherdata
`;

describe('parseTokenAuthFile', () => {
  it("reads kube's example file", () => {
    const { entries, warnings } = parse(KUBE_EXAMPLE);
    expect(warnings).toEqual([]);
    expect(entries).toEqual([
      { token: 'token1', user: { name: 'user1', uid: 'uid1', groups: [] } },
      { token: 'token2', user: { name: 'user2', uid: 'uid2', groups: [] } },
      { token: 'token3', user: { name: 'user3', uid: 'uid3', groups: ['group1', 'group2'] } },
      { token: 'token4', user: { name: 'user4', uid: 'uid4', groups: ['group2'] } },
      { token: 'token5', user: { name: 'user5', uid: 'uid5', groups: ['group5'] } },
      { token: 'token6', user: { name: 'user6', uid: 'uid6', groups: ['group5'] } },
      { token: 'token7', user: { name: 'user7', uid: 'uid7', groups: ['group1', 'group2'] } },
    ]);
  });

  it('authenticates the example tokens and nothing else (TestTokenFile)', () => {
    const auth = new TokenAuthenticator(parse(KUBE_EXAMPLE).entries);
    expect(auth.authenticateToken('token3')).toEqual({ name: 'user3', uid: 'uid3', groups: ['group1', 'group2', 'system:authenticated'] });
    expect(auth.authenticateToken('token1')).toEqual({ name: 'user1', uid: 'uid1', groups: ['system:authenticated'] });
    expect(auth.authenticateToken('token8')).toBeNull();
  });

  it('rejects a file with a record of fewer than 3 columns (TestBadTokenFile)', () => {
    expect(() => parse('\ntoken1,user1,uid1\ntoken2,user2,uid2\ntoken3,user3\ntoken4\n')).toThrow(
      "token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2",
    );
  });

  it('rejects a single 1-column record (TestInsufficientColumnsTokenFile)', () => {
    expect(() => parse('token4\n')).toThrow("token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 1");
  });

  it('skips a record with an empty token, with a warning (TestEmptyTokenTokenFile)', () => {
    const { entries, warnings } = parse(',user5,uid5\n');
    expect(entries).toEqual([]);
    expect(warnings).toEqual(["empty token has been found in token file 'tokens.csv', record number '1'"]);
  });

  it('warns about a duplicate token and lets the later record win', () => {
    const { entries, warnings } = parse('t,alice,1\nother,bob,2\nt,carol,3\n');
    expect(warnings).toEqual(["duplicate token has been found in token file 'tokens.csv', record number '3'"]);
    expect(entries.filter((e) => e.token === 't')).toEqual([{ token: 't', user: { name: 'carol', uid: '3', groups: [] } }]);
    expect(new TokenAuthenticator(entries).authenticateToken('t')?.name).toBe('carol');
  });

  it('skips blank lines but not #-lines, which kube does not treat as comments', () => {
    expect(parse('\n\r\na,b,c\n\n').entries).toHaveLength(1);
    expect(() => parse('# a comment\na,b,c\n')).toThrow(/found 1/);
    expect(parse('# token,user,uid\n').entries).toEqual([{ token: '# token', user: { name: 'user', uid: 'uid', groups: [] } }]);
  });

  it('keeps whitespace as part of fields and accepts CRLF line ends', () => {
    expect(parse(' tok , user,uid\r\n').entries).toEqual([{ token: ' tok ', user: { name: ' user', uid: 'uid', groups: [] } }]);
  });

  it('splits an empty group column into one empty group, as Go strings.Split does', () => {
    expect(parse('t,u,1,\n').entries[0]!.user.groups).toEqual(['']);
  });

  it('reports CSV syntax errors with the file and position', () => {
    expect(() => parse('t,u,1,"g1\n')).toThrow(`token file 'tokens.csv': parse error on line 1, column 11: extraneous or missing " in quoted-field`);
    expect(() => parse('t,u"x,1\n')).toThrow(`token file 'tokens.csv': parse error on line 1, column 4: bare " in non-quoted-field`);
  });

  it('stops at the first bad record, as kube reads record by record', () => {
    expect(() => parse('short\nt,u"x,1\n')).toThrow(/at least 3 columns/);
  });
});

describe('loadTokenAuthFile', () => {
  it('reads the file and names it in messages', async () => {
    const path = join(await dirs.make(), 'tokens.csv');
    await writeFile(path, 'secret,admin,1,system:masters\nsecret,admin2,2\n');
    const warnings: string[] = [];
    const entries = await loadTokenAuthFile(path, { onWarning: (m) => warnings.push(m) });
    expect(entries).toEqual([{ token: 'secret', user: { name: 'admin2', uid: '2', groups: [] } }]);
    expect(warnings).toEqual([`duplicate token has been found in token file '${path}', record number '2'`]);
  });

  it('fails for a missing file', async () => {
    await expect(loadTokenAuthFile(join(await dirs.make(), 'nope.csv'))).rejects.toThrow(/ENOENT/);
  });
});
