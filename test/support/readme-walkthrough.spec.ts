import { mismatches, parseAnswer, parseBody, walkthroughSteps } from './readme-walkthrough.js';

/** The convention of the documented answers (`# →` comments), as the walk-through test reads it. */
describe('documented answers (# → status body)', () => {
  const check = (documented: string, actual: string) => {
    const answer = parseAnswer(documented);
    return mismatches(answer.body!, answer.body!.kind === 'form' ? actual : parseBody(actual)!.json);
  };

  it.each([
    ['200 {"a":1,"b":"x"}', '{"b":"x","a":1}'],
    ['200 {"a":1,…}', '{"a":1,"b":2}'],
    ['200 {"id":"…","url":"/demo/images/…"}', '{"id":"3f0c","url":"/demo/images/6f1c"}'],
    ['200 {"n": 9223372036854775807}', '{"n":9223372036854775807}'],
    ['200 {"f":1.5,"t":true,"z":null}', '{"f":1.50,"t":true,"z":null}'],
    ['200 {"o":{…},"a":[…]}', '{"o":{"x":1},"a":[1,2]}'],
    ['200 ["a",…,"z"]', '["a","b","c","z"]'],
    ['200 ["a",…]', '["a"]'],
    ['200 "raw string"', '"raw string"'],
    ['203 a=1&b=…&c=', 'a=1&b=2&b=3&c='],
  ])('%s matches %s', (documented, actual) => {
    expect(check(documented, actual)).toEqual([]);
  });

  it.each([
    ['200 {"a":1}', '{"a":1,"b":2}', 'members not documented'],
    ['200 {"a":1,…}', '{"a":2}', '$.a: expected 1'],
    ['200 {"a":1,…}', '{"b":1}', '$.a: missing'],
    ['200 {"n":9223372036854775807}', '{"n":9223372036854775806}', '$.n: expected 9223372036854775807'],
    ['200 {"s":"front-….png"}', '{"s":"back-1.png"}', '$.s: expected "front-….png"'],
    ['200 ["a","b"]', '["a"]', 'elements do not match'],
    ['200 ["a",…,"z"]', '["a","y"]', 'elements do not match'],
    ['200 {"a":[]}', '{"a":{}}', 'expected an array'],
  ])('%s does not match %s', (documented, actual, problem) => {
    expect(check(documented, actual).join('\n')).toContain(problem);
  });

  it('reads the status alone, with prose after it', () => {
    expect(parseAnswer('304')).toEqual({ text: '304', status: 304 });
    expect(parseAnswer('200 the same, ETag: "1"')).toEqual({ text: '200 the same, ETag: "1"', status: 200 });
    expect(parseAnswer('200 {"a":1} (404 if none)')).toMatchObject({ status: 200, bodyText: '{"a":1}' });
    expect(() => parseAnswer('{"a":1}')).toThrow(/does not start with a status code/);
  });
});

describe('walkthroughSteps', () => {
  const readme = [
    '# Title',
    '```sh',
    'curl not-run',
    '```',
    '## A first tour',
    '```sh',
    'TOKEN=$(curl -s x)',
    '# → 200 {"access_token":"…",',
    '#        "token_type":"Bearer"}',
    '```',
    '### Read',
    '```sh',
    'curl -s r   # → 200',
    '```',
    '## Documentation',
    '```sh',
    'curl not-run-either',
    '```',
  ].join('\n');
  const guide = [
    '# API guide',
    '```sh',
    'BASE=http://localhost:8080',
    '```',
    '## Create',
    '```sh',
    'curl -s a   # → 201 {"key":"first",…}',
    'curl -s b',
    '# → 200',
    'curl -s c',
    '```',
  ].join('\n');
  const sources = [
    { file: 'README.md', text: readme, heading: '## A first tour' },
    { file: 'docs/api-guide.md', text: guide, heading: '# API guide' },
  ];

  it('cuts the sections\' sh blocks, in the order of the sources, into steps ending at each documented answer, continuation lines included', () => {
    const steps = walkthroughSteps(sources);
    expect(steps.map((s) => [s.file, s.section, s.code, s.answer?.status])).toEqual([
      ['README.md', 'A first tour', 'TOKEN=$(curl -s x)\n# → 200 {"access_token":"…",\n#        "token_type":"Bearer"}', 200],
      ['README.md', 'Read', 'curl -s r   # → 200', 200],
      ['docs/api-guide.md', 'API guide', 'BASE=http://localhost:8080', undefined],
      ['docs/api-guide.md', 'Create', 'curl -s a   # → 201 {"key":"first",…}', 201],
      ['docs/api-guide.md', 'Create', 'curl -s b\n# → 200', 200],
      ['docs/api-guide.md', 'Create', 'curl -s c', undefined],
    ]);
    expect(steps[0].answer?.bodyText).toBe('{"access_token":"…","token_type":"Bearer"}');
    expect(steps.map((s) => s.index)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('names the document when a heading is missing or an answer has no status', () => {
    expect(() => walkthroughSteps([{ file: 'docs/api-guide.md', text: guide, heading: '# Nope' }])).toThrow("docs/api-guide.md has no heading '# Nope'");
    const bad = ['# API guide', '```sh', 'curl -s x   # → ok', '```'].join('\n');
    expect(() => walkthroughSteps([{ file: 'docs/api-guide.md', text: bad, heading: '# API guide' }])).toThrow(/docs\/api-guide.md \(API guide\): .* does not start with a status code/);
  });
});
