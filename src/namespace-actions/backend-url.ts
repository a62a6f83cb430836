/**
 * The URL a `forward` handler calls: the declared URL, with `Path-Header` appended to its path when
 * given, and the request's query appended to its query. The backend path may not climb above the
 * declared path (`/../`), nor carry encoded dots, slashes or backslashes (`%2e`, `%2f`, `%5c`), which a
 * backend or a proxy before it may decode into a climb after this check; so a caller reaches only what
 * the operator exposed. A query parameter the declared URL sets wins: the caller's of the same name are
 * dropped (a backend reading the last or the first value would otherwise take the caller's).
 */
export function backendUrl(base: string, backendPath: string | undefined, rawQuery: string): URL | undefined {
  const url = new URL(base);
  if (backendPath !== undefined) {
    if (ENCODED_SEPARATOR.test(backendPath)) return undefined;
    const basePath = url.pathname.replace(/\/+$/, '');
    url.pathname = basePath + backendPath;
    if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) return undefined;
  }
  const declared = new Set(url.searchParams.keys());
  const query = rawQuery.split('&').filter((pair) => pair !== '' && !declared.has(parameterName(pair))).join('&');
  if (query !== '') url.search = url.search.length > 1 ? `${url.search}&${query}` : `?${query}`;
  return url;
}

/** `%2e` (.), `%2f` (/), `%5c` (\\) in any case. */
const ENCODED_SEPARATOR = /%(2e|2f|5c)/i;

/** The decoded name of one `name=value` pair, as a backend's URLSearchParams reads it. */
function parameterName(pair: string): string {
  return new URLSearchParams(pair).keys().next().value ?? '';
}

/** The query string of a request URL as sent (still percent-encoded), without `?`. */
export function rawQueryOf(requestUrl: string): string {
  const index = requestUrl.indexOf('?');
  return index === -1 ? '' : requestUrl.slice(index + 1);
}
