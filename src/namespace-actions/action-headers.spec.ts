import { DomainError } from '../common/domain-error.js';
import { checkActionHeaders } from './action-headers.js';

/** The header rules of namespace-action-with-headers: 406 first, then every 400 at once. */

function failure(headers: Parameters<typeof checkActionHeaders>[0]): DomainError {
  try {
    checkActionHeaders(headers);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('accepted');
}

describe('checkActionHeaders', () => {
  it('answers the backend path when everything is valid', () => {
    expect(checkActionHeaders({ testHeader: '{}', pathHeader: '/carts/1' })).toBe('/carts/1');
    expect(checkActionHeaders({ accept: 'application/json', testHeader: '{"version":1}', pathHeader: '/' })).toBe('/');
    expect(checkActionHeaders({ testHeader: '{}', pathHeader: '/v1.2/carts/current.json' })).toBe('/v1.2/carts/current.json');
  });

  it('406 comes first, before missing headers', () => {
    const error = failure({ accept: 'text/html' });
    expect(error.status).toBe(406);
    expect(error.errors).toEqual([expect.objectContaining({ code: 'NotAcceptable' })]);
  });

  it.each([
    [{}, [['RequiredField', 'Test-Header'], ['RequiredField', 'Path-Header']]],
    [{ testHeader: '{}' }, [['RequiredField', 'Path-Header']]],
    [{ pathHeader: '/x' }, [['RequiredField', 'Test-Header']]],
    [{ testHeader: '{}', pathHeader: 'x' }, [['InvalidField', 'Path-Header']]],
    [{ testHeader: '{', pathHeader: '/x' }, [['InvalidField', 'Test-Header']]],
    [{ testHeader: 'null', pathHeader: '/x' }, [['InvalidField', 'Test-Header']]],
    [{ testHeader: '{"version":-1}', pathHeader: 'x' }, [['InvalidField', 'Test-Header.version'], ['InvalidField', 'Path-Header']]],
    [{ testHeader: '{"objectTypeProperty":{"arrayOfStringExample":[1]}}', pathHeader: '/x' }, [['InvalidField', 'Test-Header.objectTypeProperty.arrayOfStringExample[0]']]],
  ])('%j → 400 %j', (headers, expected) => {
    const error = failure(headers);
    expect(error.status).toBe(400);
    expect(error.errors.map((e) => [e.code, e.field])).toEqual(expected);
  });

  it.each(['/..;/admin', '/../secret', '/a/..', '/..', '/a;b', '/%2e%2e/x', '/%2E/x', '/a%2fb', '/a%2Fb', '/a%5Cb', '/a\\b'])('Path-Header %p → 400 InvalidField', (pathHeader) => {
    const error = failure({ testHeader: '{}', pathHeader });
    expect(error.status).toBe(400);
    expect(error.errors.map((e) => [e.code, e.field])).toEqual([['InvalidField', 'Path-Header']]);
  });
});
