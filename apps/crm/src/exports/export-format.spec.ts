import { EXPORT_COLUMNS } from '@app/contracts';
import { CSV_HEADER, csvEncoder, csvField, csvRecord, jsonEncoder } from './export-format';

describe('CSV encoding (RFC 4180, spreadsheet-safe)', () => {
  it('leaves plain values alone and writes null/empty as an empty field', () => {
    expect(csvField('Ada Lovelace')).toBe('Ada Lovelace');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
    expect(csvField('')).toBe('');
    expect(csvField('2026-11-21T10:00:00.000Z')).toBe('2026-11-21T10:00:00.000Z');
  });

  it('quotes fields holding a comma, quote, CR or LF and doubles the quotes', () => {
    expect(csvField('Acme, Inc.')).toBe('"Acme, Inc."');
    expect(csvField('The "Boss"')).toBe('"The ""Boss"""');
    expect(csvField('line one\nline two')).toBe('"line one\nline two"');
    expect(csvField('a\r\nb')).toBe('"a\r\nb"');
    expect(csvField('"')).toBe('""""');
  });

  it.each(['=1+1', '+44 20 7946 0958', '-2', '@SUM(A1)', '\tx', '\rx'])('prefixes the formula-leading value %j with a quote', (value) => {
    const field = csvField(value);
    const unquoted = field.startsWith('"') ? field.slice(1, -1).replace(/""/g, '"') : field;
    expect(unquoted).toBe(`'${value}`);
  });

  it('prefixes and quotes a formula that also holds a comma or quote', () => {
    expect(csvField('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
  });

  it('does not prefix a formula character later in the value', () => {
    expect(csvField('a=b')).toBe('a=b');
    expect(csvField('john+tag@example.com')).toBe('john+tag@example.com');
  });

  it('records end with CRLF; the header names every column in order', () => {
    expect(csvRecord(['a', null, 'b,c'])).toBe('a,,"b,c"\r\n');
    expect(CSV_HEADER).toBe(`${EXPORT_COLUMNS.join(',')}\r\n`);
    expect(CSV_HEADER.startsWith('id,full_name,first_name,last_name,title,email,phone,company_name,website,country,lens,tags,stage,lawful_basis,created_at,updated_at')).toBe(true);
  });

  it('an encoder writes the header, then each batch', () => {
    const encoder = csvEncoder();
    const out = encoder.open() + encoder.batch([['1', 'x'], ['2', null]]) + encoder.batch([]) + encoder.close();
    expect(out).toBe(`${CSV_HEADER}1,x\r\n2,\r\n`);
  });
});

describe('JSON encoding', () => {
  it('streams one array across batches', () => {
    const encoder = jsonEncoder();
    const out = encoder.open() + encoder.batch([['{"id":"a"}'], ['{"id":"b"}']]) + encoder.batch([['{"id":"c"}']]) + encoder.close();
    expect(JSON.parse(out)).toEqual([{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
  });

  it('an empty export is an empty array', () => {
    const encoder = jsonEncoder();
    expect(JSON.parse(encoder.open() + encoder.close())).toEqual([]);
  });
});
