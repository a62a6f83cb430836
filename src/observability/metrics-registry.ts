/**
 * The injection token of the process's Prometheus registry (a prom-client `Registry`). It exists with or
 * without `/metrics`, so a feature registers its metrics without knowing whether they are scraped.
 */
export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');
