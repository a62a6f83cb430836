/**
 * The URL a `forward` handler calls: the declared URL, with `Path-Header` appended to its path when
 * given, and the request's query appended to its query. The backend path may not climb above the
 * declared path (`/../`), so a caller reaches only what the operator exposed.
 */
export function backendUrl(base: string, backendPath: string | undefined, rawQuery: string): URL | undefined {
  const url = new URL(base);
  if (backendPath !== undefined) {
    const basePath = url.pathname.replace(/\/+$/, '');
    url.pathname = basePath + backendPath;
    if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) return undefined;
  }
  if (rawQuery !== '') url.search = url.search.length > 1 ? `${url.search}&${rawQuery}` : `?${rawQuery}`;
  return url;
}

/** The query string of a request URL as sent (still percent-encoded), without `?`. */
export function rawQueryOf(requestUrl: string): string {
  const index = requestUrl.indexOf('?');
  return index === -1 ? '' : requestUrl.slice(index + 1);
}
