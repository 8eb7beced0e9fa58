/**
 * A reader for Go's encoding/csv format with the settings kube's token file uses
 * (comma separator, no comment character, variable field counts, strict quotes), so a
 * file kube-apiserver accepts parses the same here and one it rejects fails with the
 * same message. Notably: blank lines are skipped, lines starting with `#` are NOT
 * comments, whitespace is part of a field, and \r\n counts as \n.
 */

export class CsvParseError extends Error {
  constructor(
    readonly startLine: number,
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(
      startLine !== line
        ? `record on line ${startLine}; parse error on line ${line}, column ${column}: ${reason}`
        : `parse error on line ${line}, column ${column}: ${reason}`,
    );
    this.name = 'CsvParseError';
  }
}

const ERR_BARE_QUOTE = 'bare " in non-quoted-field';
const ERR_QUOTE = 'extraneous or missing " in quoted-field';

/** Go reports columns as 1-based byte offsets. */
const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

class LineReader {
  private offset = 0;
  lineNo = 0;
  constructor(private readonly text: string) {}

  /** The next line including its '\n' (normalised from \r\n), or null at end of input. */
  next(): string | null {
    if (this.offset >= this.text.length) return null;
    const nl = this.text.indexOf('\n', this.offset);
    let line: string;
    if (nl < 0) {
      line = this.text.slice(this.offset);
      this.offset = this.text.length;
      if (line.endsWith('\r')) line = line.slice(0, -1);
    } else {
      line = this.text.slice(this.offset, nl + 1);
      this.offset = nl + 1;
      if (line.endsWith('\r\n')) line = line.slice(0, -2) + '\n';
    }
    this.lineNo++;
    return line;
  }
}

const stripNL = (s: string): string => (s.endsWith('\n') ? s.slice(0, -1) : s);

function readRecord(r: LineReader): string[] | null {
  let line: string | null;
  do {
    line = r.next();
    if (line === null) return null;
    // A last line holding only '\r' is blank too once the '\r' is dropped.
  } while (line === '\n' || line === '');

  const startLine = r.lineNo;
  const fields: string[] = [];
  let col = 1;
  for (;;) {
    if (!line.startsWith('"')) {
      const comma = line.indexOf(',');
      const field = comma >= 0 ? line.slice(0, comma) : stripNL(line);
      const quote = field.indexOf('"');
      if (quote >= 0) throw new CsvParseError(startLine, r.lineNo, col + bytes(field.slice(0, quote)), ERR_BARE_QUOTE);
      fields.push(field);
      if (comma < 0) return fields;
      col += bytes(field) + 1;
      line = line.slice(comma + 1);
      continue;
    }

    // Quoted field: may contain commas, doubled quotes and newlines.
    let value = '';
    let lineNo = r.lineNo;
    line = line.slice(1);
    col += 1;
    for (;;) {
      const quote = line.indexOf('"');
      if (quote >= 0) {
        value += line.slice(0, quote);
        col += bytes(line.slice(0, quote)) + 1;
        line = line.slice(quote + 1);
        if (line.startsWith('"')) {
          value += '"';
          line = line.slice(1);
          col += 1;
        } else if (line.startsWith(',')) {
          line = line.slice(1);
          col += 1;
          fields.push(value);
          break;
        } else if (line === '' || line === '\n') {
          fields.push(value);
          return fields;
        } else {
          throw new CsvParseError(startLine, r.lineNo, col - 1, ERR_QUOTE);
        }
      } else if (line.length > 0) {
        value += line;
        col += bytes(line);
        const next = r.next();
        if (next === null) {
          // End of input inside the quotes: Go reports where the input ended.
          throw new CsvParseError(startLine, lineNo, col, ERR_QUOTE);
        }
        line = next;
        lineNo = r.lineNo;
        col = 1;
      } else {
        throw new CsvParseError(startLine, lineNo, col, ERR_QUOTE);
      }
    }
  }
}

/** The records of `text` one at a time, so a caller stops at the first bad record as Go's Reader.Read loop does. */
export function* csvRecords(text: string): Generator<string[], void, void> {
  const r = new LineReader(text);
  for (let rec = readRecord(r); rec !== null; rec = readRecord(r)) yield rec;
}

/** Every record of `text`, each a list of fields. */
export function parseCsv(text: string): string[][] {
  return [...csvRecords(text)];
}
