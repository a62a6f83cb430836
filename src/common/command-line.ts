import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * `parseArgs` of node:util, except that a string option written as `--name value` takes its value whatever it
 * starts with: a client secret or a predicate may begin with `-`, which `parseArgs` alone refuses as ambiguous.
 * Everything after `--` stays positional.
 */
export function parseCommandLine<T extends ParseArgsConfig & { args: string[] }>(config: T): ReturnType<typeof parseArgs<T>> {
  const args: string[] = [];
  for (let i = 0; i < config.args.length; i++) {
    const arg = config.args[i];
    if (arg === '--') {
      args.push(...config.args.slice(i));
      break;
    }
    const name = /^--([^=]+)$/.exec(arg)?.[1];
    if (name !== undefined && config.options?.[name]?.type === 'string' && i + 1 < config.args.length) {
      args.push(`--${name}=${config.args[++i]}`);
    } else {
      args.push(arg);
    }
  }
  return parseArgs({ ...config, args });
}
