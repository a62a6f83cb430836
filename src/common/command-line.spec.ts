import { parseCommandLine } from './command-line.js';

const options = { secret: { type: 'string' }, where: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' } } as const;

describe('parseCommandLine', () => {
  it('takes a value that starts with a dash as the value of the string option before it', () => {
    const { values } = parseCommandLine({ args: ['--secret', '-x1_Z', '--where', '-1 < someProperty'], options });
    expect(values).toEqual({ secret: '-x1_Z', where: ['-1 < someProperty'] });
  });

  it('keeps --name=value, booleans, short flags and positionals as parseArgs reads them', () => {
    const { values, positionals } = parseCommandLine({ args: ['--secret=-a', '-h', 'file.ndjson', '--where', 'a', '--where', 'b'], options, allowPositionals: true });
    expect(values).toEqual({ secret: '-a', help: true, where: ['a', 'b'] });
    expect(positionals).toEqual(['file.ndjson']);
  });

  it('leaves everything after -- positional', () => {
    const { values, positionals } = parseCommandLine({ args: ['--', '--secret', 'x'], options, allowPositionals: true });
    expect(values).toEqual({});
    expect(positionals).toEqual(['--secret', 'x']);
  });

  it('still refuses an unknown option and a string option with no value', () => {
    expect(() => parseCommandLine({ args: ['--nope', 'x'], options })).toThrow(/Unknown option '--nope'/);
    expect(() => parseCommandLine({ args: ['--secret'], options })).toThrow(/argument missing/);
  });
});
