/**
 * Reading the environment: every variable the service knows is read once at start-up through an
 * `EnvReader`, which records each bad value instead of throwing, so that all of them are reported in
 * one `ConfigError`. Nothing outside this folder reads `process.env`.
 */
export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

export class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env = process.env) {}

  string(name: string): string | undefined;
  string(name: string, fallback: string): string;
  string(name: string, fallback?: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === '' ? fallback : value;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${name}: must be an integer from ${min} to ${max} (got '${raw}')`);
      return fallback;
    }
    return value;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (/^(true|1|yes)$/i.test(raw)) return true;
    if (/^(false|0|no)$/i.test(raw)) return false;
    this.problems.push(`${name}: must be true or false (got '${raw}')`);
    return fallback;
  }

  list(name: string): string[] {
    return (this.string(name) ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!allowed.includes(raw as T)) {
      this.problems.push(`${name}: must be one of ${allowed.join(', ')} (got '${raw}')`);
      return fallback;
    }
    return raw as T;
  }

  url(name: string, protocols: string[]): string | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) throw new Error();
      return raw;
    } catch {
      this.problems.push(`${name}: must be a ${protocols.join(' or ')} URL`);
      return undefined;
    }
  }

  /** Refuses to start: every problem recorded so far, one per line. */
  assertValid(): void {
    if (this.problems.length > 0) {
      throw new ConfigError(`Invalid configuration:\n  - ${this.problems.join('\n  - ')}`);
    }
  }
}

/**
 * One section of the configuration, owned by the module it configures (the `registerAs` habit): its
 * reader validates its own variables into `read.problems`; `KEY` is the injection token of its value.
 */
interface ConfigSection<T> {
  readonly KEY: symbol;
  read(read: EnvReader): T;
}

export function configSection<T>(name: string, read: (read: EnvReader) => T): ConfigSection<T> {
  return { KEY: Symbol(`${name} config`), read };
}
