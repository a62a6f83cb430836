import { namedStatement, statementTemplate } from './named-statement.js';

describe('namedStatement', () => {
  it('numbers the names in the order declared, whatever the order of use, and orders values by name', () => {
    const s = namedStatement('s', ['id', 'projectKey', 'by'], 'UPDATE t SET by = :by::jsonb WHERE id = :id AND project_key = :projectKey AND id = :id');
    expect(s.text).toBe('UPDATE t SET by = $3::jsonb WHERE id = $1 AND project_key = $2 AND id = $1');
    expect(s.values({ by: '{}', projectKey: 'p', id: 'i' })).toEqual(['i', 'p', '{}']);
    expect(s.source).toContain(':by::jsonb');
  });

  it('leaves casts, JSON text and time formats alone', () => {
    const s = namedStatement('s', ['x'], `SELECT :x::text::jsonb, '{"staged": false}'::jsonb, to_char(now(), 'HH24:MI:SS'), a::int`);
    expect(s.text).toBe(`SELECT $1::text::jsonb, '{"staged": false}'::jsonb, to_char(now(), 'HH24:MI:SS'), a::int`);
  });

  it('refuses a name used and not declared, and one declared and not used', () => {
    expect(() => namedStatement('s', ['id'], 'SELECT :id, :other')).toThrow('Statement s uses :other, which is not among its parameters.');
    expect(() => namedStatement('s', ['id', 'spare'], 'SELECT :id')).toThrow('Statement s declares :spare and never uses them.');
  });
});

describe('statementTemplate', () => {
  it('builds from its arguments and keeps the examples it is rendered with', () => {
    const t = statementTemplate([['a = $2']], (where: string) => `SELECT 1 WHERE ${where}`);
    expect(t('b = $2')).toBe('SELECT 1 WHERE b = $2');
    expect(t.examples).toEqual([['a = $2']]);
  });
});
