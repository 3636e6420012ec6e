import { intFlag, listFlag, onlyFlags, parseArgs, receiverUrl, requiredFlag, UsageError } from '../src/args';

describe('lim arguments', () => {
  it('flags as --name value or --name=value in any order, positionals around them, switches without a value', () => {
    const args = parseArgs(['events', '--limit', '5', 'list', '--type=lead.created', '--help'], new Set(['help']));
    expect(args.positionals).toEqual(['events', 'list']);
    expect(Object.fromEntries(args.flags)).toEqual({ limit: '5', type: 'lead.created', help: true });
    expect(parseArgs(['get', '--', '--not-a-flag']).positionals).toEqual(['get', '--not-a-flag']);
  });

  it.each([
    [['--limit'], '--limit needs a value'],
    [['--limit', '--type', 'x'], '--limit needs a value'],
    [['--a', '1', '--a', '2'], '--a is given twice'],
    [['--help=1'], '--help takes no value'],
  ])('%j is a usage error', (argv, message) => {
    expect(() => parseArgs(argv, new Set(['help']))).toThrow(new UsageError(message));
  });

  it('required, integer, list and URL flags; flags a command does not take', () => {
    const args = parseArgs(['--limit', '0', '--events', 'a, b,,a', '--forward-to', 'ftp://x']);
    expect(() => requiredFlag(args, 'endpoint')).toThrow('--endpoint is required');
    expect(() => intFlag(args, 'limit', 1, 100)).toThrow('--limit must be an integer from 1 to 100');
    expect(listFlag(args, 'events')).toEqual(['a', 'b']);
    expect(() => receiverUrl('ftp://x')).toThrow('--forward-to must be an absolute http:// or https:// URL');
    expect(() => receiverUrl('localhost:4242/hooks')).toThrow(UsageError);
    expect(receiverUrl('http://localhost:4242/hooks').href).toBe('http://localhost:4242/hooks');
    expect(() => onlyFlags(args, ['limit', 'events'])).toThrow('unknown flag --forward-to');
  });
});
