/** An HTTP Basic `Authorization` value for an API client's id and secret. */
export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`, 'utf8').toString('base64')}`;
}
