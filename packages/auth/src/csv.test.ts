import { CsvParseError, parseCsv } from './csv.js';

// Cases from Go's encoding/csv reader_test.go, with the reader settings kube's token
// file uses (Comma ',', no Comment, FieldsPerRecord -1, strict quotes).
describe('parseCsv (Go encoding/csv semantics)', () => {
  it.each<[string, string, string[][]]>([
    ['Simple', 'a,b,c\n', [['a', 'b', 'c']]],
    ['CRLF', 'a,b\r\nc,d\r\n', [['a', 'b'], ['c', 'd']]],
    ['BareCR', 'a,b\rc,d\r\n', [['a', 'b\rc', 'd']]],
    ['NoEOL', 'a,b,c', [['a', 'b', 'c']]],
    ['MultiLine', '"two\nline","one line","three\nline\nfield"', [['two\nline', 'one line', 'three\nline\nfield']]],
    ['BlankLine', 'a,b,c\n\nd,e,f\n\n', [['a', 'b', 'c'], ['d', 'e', 'f']]],
    ['LeadingSpace', ' a,  b,   c\n', [[' a', '  b', '   c']]],
    ['NoComment', '#1,2,3\na,b,c', [['#1', '2', '3'], ['a', 'b', 'c']]],
    ['Quotes', '"a,a","b""bb","ccc"\n', [['a,a', 'b"bb', 'ccc']]],
    ['TrailingCommaEOF', 'a,b,c,', [['a', 'b', 'c', '']]],
    ['TrailingCommaEOL', 'a,b,c,\n', [['a', 'b', 'c', '']]],
    ['NotTrailingComma3', 'a,b,c, \n', [['a', 'b', 'c', ' ']]],
    ['EmptyFields', ',,,\n"","","",""\n', [['', '', '', ''], ['', '', '', '']]],
    ['CRLFInQuotedField', 'A,"Hello\r\nHi",B\r\n', [['A', 'Hello\nHi', 'B']]],
    ['TrailingCR', 'field1,field2\r', [['field1', 'field2']]],
    ['QuotedTrailingCR', '"field"\r', [['field']]],
    ['FieldCRCR', 'field\r\rfield\r\r', [['field\r\rfield\r']]],
    ['FieldCRCRLF', 'field\r\r\nfield\r\r\n', [['field\r'], ['field\r']]],
    ['QuotedFieldMultipleLF', '"\n\n\n\n"', [['\n\n\n\n']]],
    ['MultipleCRLF', '\r\n\r\n\r\n\r\n', []],
    ['EvenQuotes', '""""""""', [['"""']]],
    ['Empty', '', []],
  ])('%s', (_name, input, want) => {
    expect(parseCsv(input)).toEqual(want);
  });

  // Go reports 1-based byte columns (Go >= 1.17).
  it.each<[string, string, string]>([
    ['BadDoubleQuotes', 'a""b,c', 'parse error on line 1, column 2: bare " in non-quoted-field'],
    ['BadBareQuote', 'a "word","b"', 'parse error on line 1, column 3: bare " in non-quoted-field'],
    ['BadTrailingQuote', '"a word",b"', 'parse error on line 1, column 11: bare " in non-quoted-field'],
    ['ExtraneousQuote', '"a "word","b"', 'parse error on line 1, column 4: extraneous or missing " in quoted-field'],
    ['StartLine1', 'a,"b\nc"d,e', 'record on line 1; parse error on line 2, column 2: extraneous or missing " in quoted-field'],
    ['StartLine2', 'a,b\n"d\n\n,e', 'record on line 2; parse error on line 4, column 3: extraneous or missing " in quoted-field'],
    ['QuotedTrailingCRCR', '"field"\r\r', 'parse error on line 1, column 7: extraneous or missing " in quoted-field'],
    ['QuoteWithTrailingCRLF', '"foo"bar"\r\n', 'parse error on line 1, column 5: extraneous or missing " in quoted-field'],
    ['OddQuotes', '"""""""', 'parse error on line 1, column 8: extraneous or missing " in quoted-field'],
    ['UnterminatedAtEOL', 'a,"b\n', 'parse error on line 1, column 6: extraneous or missing " in quoted-field'],
    ['MultibyteColumns', 'é,x"', 'parse error on line 1, column 5: bare " in non-quoted-field'],
  ])('%s', (_name, input, message) => {
    let caught: unknown;
    try {
      parseCsv(input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(CsvParseError);
    expect((caught as Error).message).toBe(message);
  });
});
